-- The on-chain half: contracts deployed per EVM chain, where each chain watcher stands, what it saw
-- (executions and redemptions, one row per log), and the wallets registered to accounts.

-- One row per EVM chain the product runs on: its contracts, and the block the deployment landed in.
CREATE TABLE chain_deployments (
  chain          text PRIMARY KEY CHECK (chain IN ('ethereum-1', 'bsc-56')),
  chain_id       bigint NOT NULL,
  token_manager  text NOT NULL,
  issuer         text NOT NULL,
  registry       text NOT NULL,
  stablecoin     text NOT NULL,
  deployer       text NOT NULL,
  deployed_block bigint NOT NULL,
  deployed_at    timestamptz NOT NULL DEFAULT now()
);

-- Token addresses on EVM chains come from deployments only: drop the addresses derived before contracts existed.
DELETE FROM asset_addresses WHERE network_chain_id IN ('ethereum-1', 'bsc-56');

-- The next block a chain's watcher scans; it moves forward only after a whole range was handled.
CREATE TABLE chain_cursors (
  chain      text PRIMARY KEY REFERENCES chain_deployments ON DELETE CASCADE,
  next_block bigint NOT NULL CHECK (next_block >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every TradeExecuted log seen, once: the chain's word that an attestation executed.
CREATE TABLE trade_executions (
  chain          text NOT NULL,
  tx_hash        text NOT NULL,
  log_index      integer NOT NULL,
  block_number   bigint NOT NULL,
  execution_id   numeric(78, 0) NOT NULL,
  attestation_id numeric(39, 0) NOT NULL,
  user_id        text NOT NULL,
  side           text NOT NULL CHECK (side IN ('buy', 'sell')),
  asset          text NOT NULL,
  price          numeric(78, 0) NOT NULL,
  quantity       numeric(78, 0) NOT NULL,
  executed_at    bigint NOT NULL,
  seen_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, tx_hash, log_index),
  UNIQUE (chain, execution_id)
);
CREATE INDEX trade_executions_attestation ON trade_executions (attestation_id);

ALTER TABLE attestations ADD COLUMN execution_block_number bigint, ADD COLUMN execution_log_index integer;

-- Burns through the issuer contract (IssuerRedeem), one per log; the redemption workflow carries each on.
CREATE TABLE redemptions (
  redemption_id text PRIMARY KEY,
  chain         text NOT NULL,
  tx_hash       text NOT NULL,
  log_index     integer NOT NULL,
  block_number  bigint NOT NULL,
  block_time    bigint NOT NULL,
  wallet        text NOT NULL,
  user_id       text NOT NULL,
  token         text NOT NULL,
  symbol        text,
  -- Token base units (18 decimals) and the contract's USD figure (18 decimals), as the log carries them.
  amount        numeric(78, 0) NOT NULL CHECK (amount > 0),
  usd_notional  numeric(78, 0) NOT NULL,
  state         text NOT NULL DEFAULT 'pending',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (chain, tx_hash, log_index)
);
CREATE INDEX redemptions_wallet ON redemptions (chain, wallet);

-- An account's wallets, per chain, as the identity registry should hold them. `state` follows the
-- registration workflow: registering → registered, unregistering → unregistered, or failed with `error`.
CREATE TABLE account_wallets (
  chain        text NOT NULL CHECK (chain IN ('ethereum-1', 'bsc-56')),
  address      text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  account_id   text NOT NULL REFERENCES accounts,
  state        text NOT NULL CHECK (state IN ('registering', 'registered', 'unregistering', 'unregistered', 'failed')),
  tx_hash      text,
  error        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, address)
);
CREATE INDEX account_wallets_account ON account_wallets (account_id);

-- Every transaction the issuer signs, under the key of the step that needs it (workflow id and step): signed and
-- stored before it is broadcast, so a retry re-sends the same bytes instead of signing a second transaction.
CREATE TABLE chain_transactions (
  key          text PRIMARY KEY,
  chain        text NOT NULL,
  sender       text NOT NULL,
  nonce        bigint NOT NULL,
  tx_hash      text NOT NULL UNIQUE,
  raw          text NOT NULL,
  state        text NOT NULL DEFAULT 'signed' CHECK (state IN ('signed', 'confirmed', 'reverted')),
  block_number bigint,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (chain, sender, nonce)
);
