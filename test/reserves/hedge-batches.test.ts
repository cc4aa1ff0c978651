/**
 * Hedge batches (db/queries/hedging.ts) order everything owed: the chain watcher writes obligations while a batch
 * opens, without the batch's lock, and an obligation committed in between is in the batch and its order, or in
 * neither — never in the batch with its shares left unordered; what a canceled order did not fill is ordered again
 * with no new obligation to bring it along.
 */
import { openHedgeBatch, recordHedgeOutcome, settleHedgeBatch, underlyingsOwed } from '../../db/queries/hedging';
import { cloneTemplateDatabase, type TestDb } from '../support/database';

let database: TestDb;
beforeAll(async () => {
  database = await cloneTemplateDatabase();
});
afterAll(() => database.drop());

let logIndex = 0;
/** A final buy of `tokens` of the underlying's token at a shares multiplier of 1, as the chain watcher writes it. */
async function owe(tokens: string, underlying = 'SPY'): Promise<void> {
  logIndex += 1;
  await database.db.query(
    `INSERT INTO hedge_obligations (chain, tx_hash, log_index, block_hash, attestation_id, symbol, underlying, side, tokens, shares_multiplier,
       shares, attested_price, attested_share_price, executed_at)
     VALUES ('ethereum-1', '0xbatch', $1::int, '0xblock', $1::int, $3 || 'on', $3, 'buy', $2::numeric, 1, $2::numeric, 500, 500, 0)`,
    [logIndex, tokens, underlying],
  );
}

/** What the batch's obligations owe, and what its buy order was sized from. */
async function batchTotals(batchId: string): Promise<{ obligations: string; ordered: string }> {
  const { rows } = await database.db.query<{ obligations: string; ordered: string }>(
    `SELECT (SELECT trim_scale(sum(shares))::text FROM hedge_obligations WHERE batch_id = $1) AS obligations,
            (SELECT trim_scale(shares_owed)::text FROM hedge_orders WHERE batch_id = $1 AND side = 'buy') AS ordered`,
    [batchId],
  );
  return rows[0]!;
}

test('an obligation committed while a batch opens is in the batch and its order', async () => {
  await owe('0.1');
  // Another transaction holds the batches' table, so the batch stops just before it takes the obligations.
  const holder = await database.db.connect();
  let opened: ReturnType<typeof openHedgeBatch> | undefined;
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE hedge_batches IN SHARE MODE');
    opened = openHedgeBatch(database.db, 'SPY');
    for (;;) {
      const { rows } = await database.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO hedge_batches%'`,
      );
      if (rows[0]!.n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await owe('0.2');
    await holder.query('COMMIT');
  } finally {
    holder.release();
  }
  const batch = (await opened)!;
  expect(batch.orders).toMatchObject([{ side: 'buy', sharesOwed: '0.3', qty: '0.3' }]);
  expect(await batchTotals(batch.batchId)).toEqual({ obligations: '0.3', ordered: '0.3' });
  expect(await openHedgeBatch(database.db, 'SPY')).toMatchObject({ batchId: batch.batchId });
});

test('what a canceled order did not fill is ordered again, with no new obligation to bring it along', async () => {
  await owe('1.5', 'QQQ');
  const first = (await openHedgeBatch(database.db, 'QQQ'))!;
  expect(first.orders).toMatchObject([{ side: 'buy', qty: '1.5' }]);
  // The day ends with 0.4 filled: the broker cancels the rest.
  await recordHedgeOutcome(database.db, { batchId: first.batchId, side: 'buy', state: 'canceled', brokerOrderId: 'b-1', filledQty: '0.4', filledAvgPrice: '500', reason: 'day ended', filledAt: null });
  expect(await settleHedgeBatch(database.db, first.batchId)).toBe('done');
  expect(await underlyingsOwed(database.db)).toContain('QQQ');
  const again = (await openHedgeBatch(database.db, 'QQQ'))!;
  expect(again.batchId).not.toBe(first.batchId);
  expect(again.orders).toMatchObject([{ side: 'buy', sharesOwed: '1.1', qty: '1.1' }]);
  await recordHedgeOutcome(database.db, { batchId: again.batchId, side: 'buy', state: 'filled', brokerOrderId: 'b-2', filledQty: '1.1', filledAvgPrice: '500', reason: null, filledAt: Date.now() });
  await settleHedgeBatch(database.db, again.batchId);
  expect(await openHedgeBatch(database.db, 'QQQ')).toBeUndefined();
  expect(await underlyingsOwed(database.db)).not.toContain('QQQ');
});
