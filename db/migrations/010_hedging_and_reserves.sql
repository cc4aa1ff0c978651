-- Every token backed: each attestation execution that reaches finality owes a hedge at the broker (a buy mint buys
-- tokens × sharesMultiplier shares, a sell redeem sells them); hedging workflows net what is owed per underlying into
-- one order per side; reserve snapshots compare the tokens on chain with the shares at the broker.

-- One obligation per final TradeExecuted log, written in the transaction that makes the log final.
CREATE TABLE hedge_obligations (
  chain             text NOT NULL,
  tx_hash           text NOT NULL,
  log_index         integer NOT NULL,
  block_hash        text NOT NULL,
  attestation_id    numeric(39, 0) NOT NULL,
  symbol            text NOT NULL,
  -- The broker's symbol: the asset's underlying ticker.
  underlying        text NOT NULL,
  side              text NOT NULL CHECK (side IN ('buy', 'sell')),
  tokens            numeric NOT NULL CHECK (tokens > 0),
  shares_multiplier numeric NOT NULL CHECK (shares_multiplier > 0),
  -- tokens × shares_multiplier, exact (the orders round; the remainder is carried, see hedge_carry).
  shares            numeric NOT NULL,
  -- What the attestation priced one token at, and one share (÷ multiplier), USD.
  attested_price    numeric NOT NULL,
  attested_share_price numeric NOT NULL,
  executed_at       bigint NOT NULL,
  owed_at           timestamptz NOT NULL DEFAULT clock_timestamp(),
  batch_id          text,
  PRIMARY KEY (chain, tx_hash, log_index)
);
CREATE INDEX hedge_obligations_unbatched ON hedge_obligations (underlying, owed_at) WHERE batch_id IS NULL;
CREATE INDEX hedge_obligations_batch ON hedge_obligations (batch_id);

-- A netting window's obligations of one underlying: `open` while its orders are worked on (at most one per
-- underlying), then `done` (every order filled, or what did not fill carried to the next batch) or `review` (the
-- broker rejected an order for good).
CREATE TABLE hedge_batches (
  batch_id    text PRIMARY KEY,
  underlying  text NOT NULL,
  seq         integer NOT NULL,
  state       text NOT NULL CHECK (state IN ('open', 'done', 'review')),
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  settled_at  timestamptz,
  UNIQUE (underlying, seq)
);
CREATE UNIQUE INDEX hedge_batches_one_open ON hedge_batches (underlying) WHERE state = 'open';
ALTER TABLE hedge_obligations ADD CONSTRAINT hedge_obligations_batch_fk FOREIGN KEY (batch_id) REFERENCES hedge_batches;

-- One order per side of a batch; its client_order_id is derived from the batch, so a retry never orders twice.
-- `pending` until the broker's order is terminal, then `filled`, `canceled` (day ended: the rest carried) or `review`.
CREATE TABLE hedge_orders (
  batch_id          text NOT NULL REFERENCES hedge_batches,
  side              text NOT NULL CHECK (side IN ('buy', 'sell')),
  underlying        text NOT NULL,
  client_order_id   text NOT NULL UNIQUE,
  -- What the batch's obligations owe exactly, with the carry brought in; the order's qty rounded to the broker's nine
  -- decimals (buys up, sells down: toward the backing); the difference is carried out.
  shares_owed       numeric NOT NULL,
  qty               numeric(30, 9) NOT NULL CHECK (qty > 0),
  state             text NOT NULL CHECK (state IN ('pending', 'filled', 'canceled', 'review')),
  broker_order_id   text,
  filled_qty        numeric(30, 9) NOT NULL DEFAULT 0,
  filled_avg_price  numeric,
  -- Why it waits (market paused, broker not trading, broker down) or why it went to review: the broker's reason.
  last_error        text,
  reason            text,
  attempts          integer NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  placed_at         timestamptz,
  filled_at         timestamptz,
  updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (batch_id, side)
);
CREATE INDEX hedge_orders_review ON hedge_orders (underlying) WHERE state = 'review';

-- What rounding (and fills short of an order) left owed per underlying and side: brought into the next order.
CREATE TABLE hedge_carry (
  underlying text NOT NULL,
  side       text NOT NULL CHECK (side IN ('buy', 'sell')),
  shares     numeric NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (underlying, side)
);

-- Proof of reserves: one row per asset per computation.
CREATE TABLE reserve_snapshots (
  taken_at        bigint NOT NULL,
  symbol          text NOT NULL,
  underlying      text NOT NULL,
  status          text NOT NULL CHECK (status IN ('covered', 'short')),
  snapshot        jsonb NOT NULL,
  PRIMARY KEY (underlying, taken_at)
);
CREATE INDEX reserve_snapshots_taken ON reserve_snapshots (taken_at);

-- Assets whose attestation minting is paused because their reserves are short beyond the tolerance.
CREATE TABLE reserve_pauses (
  symbol     text PRIMARY KEY REFERENCES assets ON DELETE CASCADE,
  shortfall  numeric NOT NULL,
  since      bigint NOT NULL,
  reason     text NOT NULL
);

ALTER TABLE chain_outbox DROP CONSTRAINT chain_outbox_kind_check;
ALTER TABLE chain_outbox ADD CONSTRAINT chain_outbox_kind_check
  CHECK (kind IN ('execution_seen', 'execution_orphaned', 'execution_final', 'redemption_final', 'hedge_owed'));
