-- Accounts, attestations and the limits that govern them.

-- An account is one user of the platform: its userId (bytes32) goes into every attestation it gets.
CREATE TABLE accounts (
  id         text PRIMARY KEY,
  user_id    text NOT NULL UNIQUE CHECK (user_id ~ '^0x[0-9a-f]{64}$'),
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE api_keys ADD COLUMN account_id text REFERENCES accounts;

-- Per-asset pricing: spread (basis points) and validity (seconds) by duration.
CREATE TABLE asset_pricing (
  symbol             text PRIMARY KEY REFERENCES assets ON DELETE CASCADE,
  short_spread_bps   integer NOT NULL CHECK (short_spread_bps >= 0),
  long_spread_bps    integer NOT NULL CHECK (long_spread_bps >= short_spread_bps),
  short_ttl_seconds  integer NOT NULL CHECK (short_ttl_seconds > 0),
  long_ttl_seconds   integer NOT NULL CHECK (long_ttl_seconds >= short_ttl_seconds)
);

-- Session notional: what a user may attest for an asset within one session, outstanding or not.
ALTER TABLE session_limits ADD COLUMN max_session_notional_value numeric CHECK (max_session_notional_value >= 0);
UPDATE session_limits SET max_session_notional_value = max_active_notional_value * 4;
ALTER TABLE session_limits ALTER COLUMN max_session_notional_value SET NOT NULL;

CREATE TABLE attestations (
  attestation_id     numeric(39, 0) PRIMARY KEY,
  account_id         text NOT NULL REFERENCES accounts,
  user_id            text NOT NULL,
  symbol             text NOT NULL REFERENCES assets,
  chain              text NOT NULL CHECK (chain IN ('ethereum-1', 'bsc-56', 'solana-900')),
  side               text NOT NULL CHECK (side IN ('buy', 'sell')),
  duration           text NOT NULL CHECK (duration IN ('short', 'long')),
  token_amount       numeric NOT NULL CHECK (token_amount > 0),
  price              numeric NOT NULL CHECK (price > 0),
  notional           numeric NOT NULL CHECK (notional > 0),
  -- The market session (and the instant it started) the attestation was created in.
  session            text NOT NULL,
  session_started_at bigint NOT NULL,
  created_at         bigint NOT NULL,
  expires_at         bigint NOT NULL,
  state              text NOT NULL DEFAULT 'outstanding' CHECK (state IN ('outstanding', 'executed', 'expired')),
  execution_tx_hash  text,
  state_changed_at   bigint,
  user_address       text,
  asset_address      text NOT NULL,
  signature          text NOT NULL,
  additional_data    text NOT NULL,
  -- The exact response, so an idempotent retry answers byte for byte what the first call did.
  response           jsonb NOT NULL,
  idempotency_key    text,
  request_hash       text,
  UNIQUE (account_id, idempotency_key)
);
CREATE INDEX attestations_user_asset ON attestations (account_id, symbol, created_at);
CREATE INDEX attestations_outstanding ON attestations (symbol, expires_at) WHERE state = 'outstanding';
CREATE INDEX attestations_session ON attestations (session_started_at, symbol);

-- Keys that can write and existed before accounts get an account each.
WITH keys AS (
  SELECT id, name, 'acct_' || substr(md5(id), 1, 16) AS account_id FROM api_keys WHERE scope IN ('write', 'admin') AND account_id IS NULL
), created AS (
  INSERT INTO accounts (id, user_id, name)
  SELECT account_id, '0x' || md5(random()::text || id) || md5(id || random()::text), name FROM keys
)
UPDATE api_keys k SET account_id = keys.account_id FROM keys WHERE k.id = keys.id;
