-- The brokerage sandbox: credentials, accounts, positions, the share journal, tokenization requests
-- (mint and redeem records with their processing state) and stored idempotent responses.

CREATE TABLE broker.credentials (
  key text PRIMARY KEY,
  secret_sha256 bytea NOT NULL,
  role text NOT NULL CHECK (role IN ('participant', 'issuer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE broker.accounts (
  account_id uuid PRIMARY KEY,
  account_number text NOT NULL UNIQUE,
  email text NOT NULL UNIQUE,
  kind text NOT NULL CHECK (kind IN ('participant', 'issuer')),
  -- The participant credential that may act on the account (none for the issuer's account).
  owner_key text REFERENCES broker.credentials (key),
  -- The issuer's client id, stored once the account is linked on the issuer side.
  client_id text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'participant') = (owner_key IS NOT NULL))
);

-- At most one account belongs to the issuer (the shares backing tokens).
CREATE UNIQUE INDEX accounts_one_issuer ON broker.accounts ((kind)) WHERE kind = 'issuer';

CREATE TABLE broker.positions (
  account_id uuid NOT NULL REFERENCES broker.accounts (account_id),
  symbol text NOT NULL,
  qty numeric(30, 9) NOT NULL CHECK (qty >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, symbol)
);

CREATE TABLE broker.tokenization_requests (
  tokenization_request_id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES broker.accounts (account_id),
  type text NOT NULL CHECK (type IN ('mint', 'redeem')),
  status text NOT NULL CHECK (status IN ('pending', 'completed', 'rejected')),
  transfer_status text NOT NULL CHECK (transfer_status IN ('pending', 'completed', 'rejected')),
  underlying_symbol text NOT NULL,
  token_symbol text NOT NULL,
  qty numeric(30, 9) NOT NULL CHECK (qty > 0),
  issuer text NOT NULL,
  network text NOT NULL CHECK (network IN ('ethereum', 'binance')),
  wallet_address text NOT NULL,
  issuer_request_id text,
  client_request_id text,
  tx_hash text,
  fees numeric(30, 9) NOT NULL DEFAULT 0,
  reason text,
  -- Mint only: what the broker signed and the exact issuance body it submits (every retry sends these bytes).
  nonce numeric(78, 0) UNIQUE,
  created_epoch bigint,
  broker_signature text,
  submission text,
  -- Processing: the next step of the sandbox's own work, when it is due, and who holds it.
  step text NOT NULL CHECK (step IN ('submit', 'journal', 'confirm', 'done')),
  confirm_status text CHECK (confirm_status IN ('completed', 'rejected')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_owner text,
  lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK (type = 'redeem' OR (nonce IS NOT NULL AND submission IS NOT NULL AND broker_signature IS NOT NULL))
);

CREATE INDEX tokenization_requests_by_account ON broker.tokenization_requests (account_id, created_at DESC);
CREATE INDEX tokenization_requests_due ON broker.tokenization_requests (next_attempt_at) WHERE step <> 'done';
-- One redeem record per issuer redemption, however many times the issuer calls back.
CREATE UNIQUE INDEX tokenization_requests_one_redeem ON broker.tokenization_requests (issuer_request_id) WHERE type = 'redeem';

CREATE TABLE broker.journal (
  journal_id bigserial PRIMARY KEY,
  -- NULL from_account: shares deposited into the sandbox from outside (seeding).
  from_account uuid REFERENCES broker.accounts (account_id),
  to_account uuid NOT NULL REFERENCES broker.accounts (account_id),
  symbol text NOT NULL,
  qty numeric(30, 9) NOT NULL CHECK (qty > 0),
  reason text NOT NULL CHECK (reason IN ('deposit', 'mint', 'redeem')),
  tokenization_request_id uuid REFERENCES broker.tokenization_requests (tokenization_request_id),
  idempotency_key text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK (from_account IS DISTINCT FROM to_account)
);

CREATE TABLE broker.idempotent_responses (
  scope text NOT NULL,
  idempotency_key text NOT NULL,
  request_sha256 text NOT NULL,
  status integer,
  body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, idempotency_key)
);
