-- The partner (brokerage) in-kind flow: partner-scoped keys, the clients that may use the flow and the brokerage
-- account each is linked to, the wallets enabled for it, its per-session USD limits, and one row per mint or
-- redemption it carries (the workflows own the state; this is what the API lists and what limits are measured on).

ALTER TABLE api_keys DROP CONSTRAINT api_keys_scope_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scope_check CHECK (scope IN ('read', 'write', 'admin', 'partner'));

-- An issuer account onboarded for the flow: the email the partner connects with, whether it may use the flow,
-- and the partner's account number once the partner has linked it (POST /v1/tokenization/accounts/connect).
CREATE TABLE partner_clients (
  client_id       text PRIMARY KEY REFERENCES accounts,
  email           text NOT NULL UNIQUE CHECK (email = lower(email)),
  eligible        boolean NOT NULL DEFAULT true,
  partner_account text UNIQUE,
  linked_at       timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- A registered wallet the operator enabled for the flow (it receives partner mints and may redeem through it).
ALTER TABLE account_wallets ADD COLUMN partner_enabled boolean NOT NULL DEFAULT false;

-- USD notional a session may carry per underlying and direction; an underlying without rows is not offered.
CREATE TABLE partner_session_limits (
  underlying text NOT NULL,
  session    text NOT NULL CHECK (session IN ('premarket', 'regular', 'postmarket', 'overnight', 'offhours')),
  kind       text NOT NULL CHECK (kind IN ('mint', 'redeem')),
  limit_usd  numeric NOT NULL CHECK (limit_usd >= 0),
  PRIMARY KEY (underlying, session, kind)
);
INSERT INTO partner_session_limits (underlying, session, kind, limit_usd)
SELECT underlying, session, kind, limit_usd
  FROM unnest(ARRAY['AAPL', 'NVDA', 'TSLA', 'MSFT', 'AMZN']) AS underlying,
       (VALUES ('premarket', 1000000), ('regular', 2000000), ('postmarket', 1000000), ('overnight', 500000), ('offhours', 250000))
         AS limits (session, limit_usd),
       unnest(ARRAY['mint', 'redeem']) AS kind;

-- One partner mint (from the broker's issuance) or redemption (from an IssuerRedeem log). `state` is the
-- workflow's: mint created → confirmed → minted → completed, or rejected; redeem pending (or needs_review while
-- no client is known) → delivering → completed. Quantities: `qty` in shares (9 decimals), `token_amount` in token
-- base units (18 decimals); `session_start` and `notional_usd` are what the session limit counted.
CREATE TABLE partner_requests (
  issuer_request_id       text PRIMARY KEY,
  kind                    text NOT NULL CHECK (kind IN ('mint', 'redeem')),
  state                   text NOT NULL CHECK (state IN ('created', 'confirmed', 'minted', 'pending', 'needs_review', 'delivering', 'completed', 'rejected')),
  client_id               text REFERENCES accounts,
  chain                   text NOT NULL CHECK (chain IN ('ethereum-1', 'bsc-56')),
  underlying_symbol       text NOT NULL,
  token_symbol            text NOT NULL,
  wallet                  text NOT NULL CHECK (wallet ~ '^0x[0-9a-f]{40}$'),
  qty                     numeric(38, 9) CHECK (qty > 0),
  token_amount            numeric(78, 0) CHECK (token_amount > 0),
  shares_multiplier       numeric,
  share_dust              numeric,
  session_start           bigint,
  notional_usd            numeric,
  -- Mint: the broker's request id and signed mint request; redeem: the burn's log.
  tokenization_request_id text UNIQUE,
  mint_request            jsonb,
  redemption_id           text UNIQUE REFERENCES redemptions,
  confirm_status          text CHECK (confirm_status IN ('completed', 'rejected')),
  tx_hash                 text,
  reason                  text,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'mint') = (tokenization_request_id IS NOT NULL)),
  CHECK ((kind = 'redeem') = (redemption_id IS NOT NULL))
);
CREATE INDEX partner_requests_created ON partner_requests (created_at DESC, issuer_request_id DESC);
CREATE INDEX partner_requests_session ON partner_requests (kind, underlying_symbol, session_start) WHERE state <> 'rejected';
