-- Token balances as the chain watcher sees them: every Transfer log of the product's tokens (mints from and burns to
-- the zero address included), known as the chain names it (chain, block hash, tx hash, log index) and staged as the
-- watcher's other logs are: `seen` at once, `final` under the chain's finality rule, `orphaned` when its block left the
-- chain. A holder's balance is what the live logs moved to it less what they moved from it; nothing is read from the
-- chain per request.
CREATE TABLE token_transfers (
  chain             text NOT NULL,
  block_hash        text NOT NULL,
  tx_hash           text NOT NULL,
  log_index         integer NOT NULL,
  block_number      bigint NOT NULL,
  -- Lower-case addresses: the token contract, the sender (zero for a mint) and the recipient (zero for a burn).
  token             text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  sender            text NOT NULL CHECK (sender ~ '^0x[0-9a-f]{40}$'),
  recipient         text NOT NULL CHECK (recipient ~ '^0x[0-9a-f]{40}$'),
  -- Token base units, as the log carries them.
  amount            numeric(78, 0) NOT NULL CHECK (amount >= 0),
  status            text NOT NULL DEFAULT 'seen' CHECK (status IN ('seen', 'final', 'orphaned')),
  status_changed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, block_hash, tx_hash, log_index)
);
-- One live copy of a log, as for executions.
CREATE UNIQUE INDEX token_transfers_live ON token_transfers (chain, tx_hash, log_index) WHERE status <> 'orphaned';
CREATE INDEX token_transfers_seen ON token_transfers (chain, block_number) WHERE status = 'seen';
CREATE INDEX token_transfers_token ON token_transfers (chain, token) WHERE status <> 'orphaned';

-- Transfers before this migration were not recorded: each watcher scans its chain again from the deployment. What it
-- recorded before stays recorded once (every record is keyed by the log); the stored window is dropped, as an
-- operator's reset of the cursor drops it, so the scan fetches those blocks again.
DELETE FROM chain_blocks b USING chain_deployments d WHERE b.chain = d.chain AND b.number >= d.deployed_block;
UPDATE chain_cursors c SET next_block = d.deployed_block, updated_at = now() FROM chain_deployments d WHERE c.chain = d.chain;
