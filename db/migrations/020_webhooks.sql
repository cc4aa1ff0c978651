-- Webhooks: the endpoints accounts (and the issuer's operators) register, the events that became true for them (a
-- transactional outbox written by triggers in the very transaction that changed the state), one delivery per event and
-- subscribed endpoint with its attempts, and the wake-ups that tell the worker an endpoint has new deliveries.

-- The signing secret is stored only sealed (AES-256-GCM under WEBHOOK_SECRET_KEYS, the endpoint id as associated data):
-- a read of this table does not give a usable secret. While a rotation's grace lasts, the previous secret signs too.
CREATE TABLE webhook_endpoints (
  endpoint_id         text PRIMARY KEY CHECK (endpoint_id ~ '^wh_[0-9a-f]{16}$'),
  account_id          text NOT NULL REFERENCES accounts,
  -- operators: an admin's endpoint, which may list the operators' events (and its account's own).
  audience            text NOT NULL CHECK (audience IN ('account', 'operators')),
  url                 text NOT NULL,
  event_types         text[] NOT NULL CHECK (cardinality(event_types) > 0),
  description         text,
  secret_key_id       text NOT NULL,
  secret_sealed       bytea NOT NULL,
  previous_key_id     text,
  previous_sealed     bytea,
  previous_expires_at timestamptz,
  state               text NOT NULL DEFAULT 'enabled' CHECK (state IN ('enabled', 'disabled')),
  disabled_by         text CHECK (disabled_by IN ('owner', 'failures', 'gone')),
  disabled_reason     text,
  disabled_at         timestamptz,
  -- The failure record its owner reads: failing since the first failure after a success, the last failure's words.
  failing_since       timestamptz,
  last_success_at     timestamptz,
  last_failure        text,
  idempotency_key     text,
  request_hash        text,
  created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (account_id, idempotency_key),
  CHECK ((state = 'disabled') = (disabled_by IS NOT NULL)),
  CHECK ((previous_key_id IS NULL) = (previous_sealed IS NULL) AND (previous_key_id IS NULL) = (previous_expires_at IS NULL))
);
-- What the triggers look up on every state change: an account's enabled endpoints, and the operators' ones.
CREATE INDEX webhook_endpoints_subscribers ON webhook_endpoints (account_id) WHERE state = 'enabled';
CREATE INDEX webhook_endpoints_operators ON webhook_endpoints (audience) WHERE state = 'enabled' AND audience = 'operators';

-- One row per fact that became true, written only when some enabled endpoint wants it. The public id is 'evt_' || seq
-- (the webhook-id header); per resource, seq order is commit order (each transition holds the resource's row lock).
CREATE TABLE webhook_events (
  seq           bigserial PRIMARY KEY,
  type          text NOT NULL,
  audience      text NOT NULL CHECK (audience IN ('account', 'operators')),
  account_id    text REFERENCES accounts,
  resource_kind text NOT NULL,
  resource_id   text NOT NULL,
  occurred_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- `data` of the envelope: the resource in the shape of its API answer, as it stood in that transaction.
  payload       jsonb NOT NULL,
  CHECK ((audience = 'account') = (account_id IS NOT NULL))
);
CREATE INDEX webhook_events_occurred ON webhook_events (occurred_at);

-- An event to send to one endpoint. Delivery is ordered per (endpoint, resource_key): only the oldest pending delivery
-- of a resource is ever claimed. `leased_until` is set while an attempt is in flight.
CREATE TABLE webhook_deliveries (
  delivery_id     bigserial PRIMARY KEY,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints ON DELETE CASCADE,
  event_seq       bigint NOT NULL REFERENCES webhook_events ON DELETE CASCADE,
  resource_key    text NOT NULL,
  state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  leased_until    timestamptz,
  delivered_at    timestamptz,
  last_status     integer,
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (endpoint_id, event_seq)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, resource_key, delivery_id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, delivery_id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id, leased_until) WHERE leased_until IS NOT NULL;
CREATE INDEX webhook_deliveries_listing ON webhook_deliveries (endpoint_id, delivery_id DESC);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_seq);
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (created_at) WHERE state <> 'pending';

-- Each attempt of a delivery: open (finished_at and outcome null) while in flight; `interrupted` when its lease ran out
-- (a worker gone mid-send), `refused` when the URL resolved to a forbidden address at delivery.
CREATE TABLE webhook_attempts (
  delivery_id      bigint NOT NULL REFERENCES webhook_deliveries ON DELETE CASCADE,
  attempt          integer NOT NULL CHECK (attempt > 0),
  started_at       timestamptz NOT NULL,
  finished_at      timestamptz,
  outcome          text CHECK (outcome IN ('delivered', 'failed', 'interrupted', 'refused')),
  status           integer,
  error            text,
  response_excerpt text,
  address          text,
  duration_ms      integer,
  PRIMARY KEY (delivery_id, attempt),
  CHECK ((finished_at IS NULL) = (outcome IS NULL))
);
-- Attempts in flight: a claim closes those whose lease ran out.
CREATE INDEX webhook_attempts_open ON webhook_attempts (delivery_id) WHERE finished_at IS NULL;

-- Endpoints with new deliveries: the worker takes these rows, wakes the endpoints' workflows and deletes them (the
-- attestation_workflow_starts pattern). One row per endpoint and writing transaction, so writers never wait on each
-- other, and the worker cannot take a wake-up before the deliveries it announces are committed.
CREATE TABLE webhook_endpoint_wakeups (
  endpoint_id    text NOT NULL REFERENCES webhook_endpoints ON DELETE CASCADE,
  transaction_id bigint NOT NULL DEFAULT txid_current(),
  stored_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (endpoint_id, transaction_id)
);

-- Whether some enabled endpoint wants an event: an account's event goes to its owner's endpoints listing the type, an
-- operators' event to every operators' endpoint listing it. One lookup in a partial index; the triggers ask this first.
CREATE FUNCTION webhook_subscribed(p_type text, p_audience text, p_account text) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF p_audience = 'account' THEN
    RETURN p_account IS NOT NULL AND EXISTS (
      SELECT 1 FROM webhook_endpoints WHERE account_id = p_account AND state = 'enabled' AND p_type = ANY (event_types));
  END IF;
  RETURN EXISTS (SELECT 1 FROM webhook_endpoints WHERE audience = 'operators' AND state = 'enabled' AND p_type = ANY (event_types));
END
$$;

-- Writes an event, a delivery per subscribed enabled endpoint and their wake-ups; nothing without a subscriber.
CREATE FUNCTION webhook_emit(p_type text, p_audience text, p_account text, p_kind text, p_id text, p_payload jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  event_seq bigint;
BEGIN
  IF NOT webhook_subscribed(p_type, p_audience, p_account) THEN
    RETURN;
  END IF;
  INSERT INTO webhook_events (type, audience, account_id, resource_kind, resource_id, payload)
  VALUES (p_type, p_audience, CASE WHEN p_audience = 'account' THEN p_account END, p_kind, p_id, p_payload)
  RETURNING seq INTO event_seq;
  WITH queued AS (
    INSERT INTO webhook_deliveries (endpoint_id, event_seq, resource_key)
    SELECT endpoint_id, event_seq, p_kind || ':' || p_id
      FROM webhook_endpoints
     WHERE state = 'enabled' AND p_type = ANY (event_types)
       AND CASE WHEN p_audience = 'account' THEN account_id = p_account ELSE audience = 'operators' END
    RETURNING endpoint_id
  )
  INSERT INTO webhook_endpoint_wakeups (endpoint_id) SELECT endpoint_id FROM queued ON CONFLICT DO NOTHING;
END
$$;

-- An attestation as GET /v1/attestations/{id} answers it at this instant (api/v1/attestations/context.ts).
CREATE FUNCTION webhook_attestation_data(a attestations) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  RETURN a.response || jsonb_build_object(
    'state', CASE WHEN a.state = 'outstanding' AND a.expires_at <= floor(extract(epoch FROM clock_timestamp()) * 1000) THEN 'expired' ELSE a.state END,
    'executionTxHash', a.execution_tx_hash,
    'executionBlockNumber', a.execution_block_number,
    'confirmations', CASE WHEN a.state = 'executing' AND a.execution_block_number IS NOT NULL THEN
        greatest(1, coalesce((SELECT c.seen_head FROM chain_cursors c WHERE c.chain = a.chain), a.execution_block_number) - a.execution_block_number + 1)
      END,
    'stateChangedAt', a.state_changed_at);
END
$$;

-- The event an attestation's new state makes: `outstanding` again only when its execution left the chain.
CREATE FUNCTION webhook_attestation_event_type(state text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE state
    WHEN 'executing' THEN 'attestation.executing'
    WHEN 'executed' THEN 'attestation.executed'
    WHEN 'expired' THEN 'attestation.expired'
    WHEN 'outstanding' THEN 'attestation.reopened'
  END
$$;

CREATE FUNCTION webhook_attestation_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM webhook_emit(webhook_attestation_event_type(NEW.state), 'account', NEW.account_id, 'attestation', NEW.attestation_id::text,
    webhook_attestation_data(NEW));
  RETURN NULL;
END
$$;

-- Only a change of state that some endpoint wants queues the trigger (asked as the row changes, in the same
-- transaction): creation and every other update cost nothing, a change nobody subscribed to one indexed lookup.
CREATE TRIGGER attestations_webhooks AFTER UPDATE OF state ON attestations
  FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state AND webhook_subscribed(webhook_attestation_event_type(NEW.state), 'account', NEW.account_id))
  EXECUTE FUNCTION webhook_attestation_changed();

-- A redemption belongs to the account whose on-chain user id the burn carried (accounts.user_id is unique).
CREATE FUNCTION webhook_redemption_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  event_type text := 'redemption.' || NEW.state;
  owner text := (SELECT id FROM accounts WHERE user_id = lower(NEW.user_id));
BEGIN
  IF webhook_subscribed(event_type, 'account', owner) THEN
    PERFORM webhook_emit(event_type, 'account', owner, 'redemption', NEW.redemption_id, jsonb_build_object(
      'redemptionId', NEW.redemption_id, 'chain', NEW.chain, 'txHash', NEW.tx_hash, 'logIndex', NEW.log_index, 'blockNumber', NEW.block_number,
      'wallet', NEW.wallet, 'token', NEW.token, 'symbol', NEW.symbol, 'amount', NEW.amount::text, 'usdNotional', NEW.usd_notional::text,
      'state', NEW.state));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER redemptions_webhooks_inserted AFTER INSERT ON redemptions
  FOR EACH ROW EXECUTE FUNCTION webhook_redemption_changed();
CREATE TRIGGER redemptions_webhooks_updated AFTER UPDATE OF state ON redemptions
  FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION webhook_redemption_changed();

-- A partner request as GET /v1/tokenization/requests/{id} answers it, without `workflow` (api/v1/tokenization/fields.ts).
CREATE FUNCTION webhook_partner_request_data(r partner_requests) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN jsonb_build_object(
    'issuerRequestId', r.issuer_request_id, 'type', r.kind,
    'status', CASE WHEN r.state IN ('completed', 'rejected') THEN r.state WHEN r.state = 'cancelled' THEN 'rejected' ELSE 'pending' END,
    'state', r.state, 'clientId', r.client_id, 'chainId', r.chain,
    'network', CASE r.chain WHEN 'ethereum-1' THEN 'ethereum' WHEN 'bsc-56' THEN 'binance' END,
    'underlyingSymbol', r.underlying_symbol, 'tokenSymbol', r.token_symbol, 'walletAddress', r.wallet,
    'qty', trim_scale(r.qty)::text, 'tokenAmount', r.token_amount::text, 'sharesMultiplier', trim_scale(r.shares_multiplier)::text,
    'shareDust', r.share_dust::text, 'notionalUsd', r.notional_usd::text, 'sessionStart', r.session_start,
    'tokenizationRequestId', r.tokenization_request_id, 'confirmStatus', r.confirm_status, 'txHash', r.tx_hash, 'reason', r.reason,
    'createdAt', floor(extract(epoch FROM r.created_at) * 1000)::bigint, 'updatedAt', floor(extract(epoch FROM r.updated_at) * 1000)::bigint);
END
$$;

-- To its client's account (partner_requests.client_id references accounts; none while no client is assigned), and to
-- the operators when it waits for review.
CREATE FUNCTION webhook_partner_request_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  event_type text := 'partner_request.' || NEW.state;
  for_review boolean := NEW.state = 'needs_review' AND webhook_subscribed('review.partner_request', 'operators', NULL);
  for_client boolean := webhook_subscribed(event_type, 'account', NEW.client_id);
  data jsonb;
BEGIN
  IF for_client OR for_review THEN
    data := webhook_partner_request_data(NEW);
  END IF;
  IF for_client THEN
    PERFORM webhook_emit(event_type, 'account', NEW.client_id, 'partner_request', NEW.issuer_request_id, data);
  END IF;
  IF for_review THEN
    PERFORM webhook_emit('review.partner_request', 'operators', NULL, 'partner_request', NEW.issuer_request_id, data);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER partner_requests_webhooks_inserted AFTER INSERT ON partner_requests
  FOR EACH ROW EXECUTE FUNCTION webhook_partner_request_changed();
CREATE TRIGGER partner_requests_webhooks_updated AFTER UPDATE OF state ON partner_requests
  FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION webhook_partner_request_changed();

-- A hedge order the broker rejected for good, as GET /v1/reserves/hedges lists it.
CREATE FUNCTION webhook_hedge_order_review() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF webhook_subscribed('review.hedge_order', 'operators', NULL) THEN
    PERFORM webhook_emit('review.hedge_order', 'operators', NULL, 'hedge_order', NEW.client_order_id, jsonb_build_object(
      'batchId', NEW.batch_id, 'side', NEW.side, 'underlying', NEW.underlying, 'clientOrderId', NEW.client_order_id,
      'sharesOwed', trim_scale(NEW.shares_owed)::text, 'qty', trim_scale(NEW.qty)::text, 'state', NEW.state, 'brokerOrderId', NEW.broker_order_id,
      'filledQty', trim_scale(NEW.filled_qty)::text, 'filledAvgPrice', trim_scale(NEW.filled_avg_price)::text, 'lastError', NEW.last_error,
      'reason', NEW.reason, 'createdAt', (extract(epoch FROM NEW.created_at) * 1000)::float8, 'filledAt', (extract(epoch FROM NEW.filled_at) * 1000)::float8));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER hedge_orders_webhooks AFTER UPDATE OF state ON hedge_orders
  FOR EACH ROW WHEN (NEW.state = 'review' AND OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION webhook_hedge_order_review();

-- An asset paused for its reserves (a row inserted) or covered again (the row deleted), as GET /v1/reserves/hedges lists pauses.
CREATE FUNCTION webhook_reserve_pause_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  event_type text := CASE TG_OP WHEN 'INSERT' THEN 'reserves.short' ELSE 'reserves.covered' END;
  pause reserve_pauses := CASE TG_OP WHEN 'INSERT' THEN NEW ELSE OLD END;
BEGIN
  IF webhook_subscribed(event_type, 'operators', NULL) THEN
    PERFORM webhook_emit(event_type, 'operators', NULL, 'asset', pause.symbol, jsonb_build_object(
      'symbol', pause.symbol, 'shortfall', trim_scale(pause.shortfall)::text, 'since', pause.since, 'reason', pause.reason));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER reserve_pauses_webhooks AFTER INSERT OR DELETE ON reserve_pauses
  FOR EACH ROW EXECUTE FUNCTION webhook_reserve_pause_changed();
