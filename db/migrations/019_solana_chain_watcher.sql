-- The Solana chain watcher keeps its place in chain_cursors beside the EVM watchers' (so /ready, the metrics and the
-- console read it alike): a slot is its block number (next_block: the slot after the last confirmed one it read,
-- seen_head: that confirmed slot, final_block: the last finalized slot it acted on). Solana has no contracts of
-- ours, so its cursor names no deployment; and it reads the issuer's transactions by signature, newest first, so it
-- also keeps the newest signature it has handled: the `until` of its next read.
ALTER TABLE chain_cursors DROP CONSTRAINT chain_cursors_chain_fkey;
ALTER TABLE chain_cursors ADD COLUMN last_signature text CHECK (last_signature ~ '^[1-9A-HJ-NP-Za-km-z]{64,88}$');
