-- Chain finality and reorganisations. A log is known by what the chain says it is (chain, block hash, tx hash,
-- log index), never by a counter the contract rolls back. What a watcher sees is shown at once (`seen`); what cannot
-- be undone waits for the chain's finality rule (`final`); what left the chain in a reorganisation is undone and kept
-- for audit (`orphaned`).

-- The blocks a watcher scanned above the last final block, and that final block (the anchor): each poll checks
-- the stored tip against the chain, and a mismatch is walked back through them to the common ancestor.
CREATE TABLE chain_blocks (
  chain       text NOT NULL REFERENCES chain_deployments ON DELETE CASCADE,
  number      bigint NOT NULL,
  hash        text NOT NULL,
  parent_hash text NOT NULL,
  -- Epoch milliseconds: the block time.
  timestamp   bigint NOT NULL,
  PRIMARY KEY (chain, number)
);

-- Where each watcher stands besides its next block: the head it last saw (number and when), the last final
-- block it acted on, and whether it is halted (a reorganisation deeper than its window, a log it cannot process)
-- with the error that halted it, or the last transient error while it retries.
ALTER TABLE chain_cursors
  ADD COLUMN seen_head      bigint,
  ADD COLUMN seen_head_at   timestamptz,
  ADD COLUMN final_block    bigint,
  ADD COLUMN status         text NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'halted')),
  ADD COLUMN last_error     jsonb,
  ADD COLUMN last_error_at  timestamptz;

-- TradeExecuted logs. A re-execution after a reorganisation may carry the execution counter of the orphaned one:
-- the counter is no identity. Rows recorded before this migration were acted on at once; they count as final and
-- get their block hash when a rescan meets them again.
ALTER TABLE trade_executions DROP CONSTRAINT trade_executions_pkey;
ALTER TABLE trade_executions DROP CONSTRAINT trade_executions_chain_execution_id_key;
ALTER TABLE trade_executions
  ADD COLUMN block_hash        text,
  ADD COLUMN status            text NOT NULL DEFAULT 'final' CHECK (status IN ('seen', 'final', 'orphaned')),
  ADD COLUMN status_changed_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE trade_executions ALTER COLUMN status SET DEFAULT 'seen';
ALTER TABLE trade_executions ADD CONSTRAINT trade_executions_log UNIQUE (chain, block_hash, tx_hash, log_index);
-- One live copy of a log: a transaction re-included in another block is a new row once the old one is orphaned.
CREATE UNIQUE INDEX trade_executions_live ON trade_executions (chain, tx_hash, log_index) WHERE status <> 'orphaned';
CREATE INDEX trade_executions_seen ON trade_executions (chain, block_number) WHERE status = 'seen';

-- An attestation whose execution is seen on chain but not final is `executing`: it keeps counting against every
-- limit until final (`executed`) or orphaned (back to `outstanding`, or `expired` past expiry and grace).
ALTER TABLE attestations DROP CONSTRAINT attestations_state_check;
ALTER TABLE attestations ADD CONSTRAINT attestations_state_check CHECK (state IN ('outstanding', 'executing', 'executed', 'expired'));
ALTER TABLE attestations ADD COLUMN execution_block_hash text;
CREATE INDEX attestations_executing ON attestations (chain, execution_block_number) WHERE state = 'executing';

-- Burns: `awaiting_finality` while seen, `pending` once final (the redemption workflow starts then and carries the
-- partner state on), `cancelled` when the burn left the chain (nothing paid; revived if the same log comes back).
ALTER TABLE redemptions ADD COLUMN block_hash text;
ALTER TABLE redemptions ADD CONSTRAINT redemptions_state_check
  CHECK (state IN ('awaiting_finality', 'cancelled', 'pending', 'needs_review', 'delivering', 'completed', 'rejected'));
CREATE INDEX redemptions_awaiting_finality ON redemptions (chain, block_number) WHERE state = 'awaiting_finality';

ALTER TABLE partner_requests DROP CONSTRAINT partner_requests_state_check;
ALTER TABLE partner_requests ADD CONSTRAINT partner_requests_state_check
  CHECK (state IN ('awaiting_finality', 'cancelled', 'created', 'confirmed', 'minted', 'pending', 'needs_review', 'delivering', 'completed', 'rejected'));

-- What the watchers still have to tell workflows, written in the transaction that changed the state it reports
-- (an execution seen, orphaned or final; a burn final): delivered after the commit and deleted once delivered, so a
-- crash anywhere loses nothing and a second delivery changes nothing.
CREATE TABLE chain_outbox (
  id          bigserial PRIMARY KEY,
  chain       text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('execution_seen', 'execution_orphaned', 'execution_final', 'redemption_final')),
  -- The attestation id (execution_*) or the redemption's workflow id (redemption_final).
  subject     text NOT NULL,
  payload     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chain_outbox_chain ON chain_outbox (chain, id);

-- Issuer transactions are `confirmed` only once their block is final.
ALTER TABLE chain_transactions ADD COLUMN block_hash text;
