/**
 * The console overview's "needing a person" list (db/queries/console.ts): requests in review, held by a pause (the
 * market's, or an ASSET_PAUSED event of the request's token in force), waiting too long for the broker's confirm,
 * rejected today — and nothing else.
 */
import { requestsNeedingAttention } from '../../db/queries/console';
import { insertAssetEvent, setMarketPaused } from '../../db/queries/operator-controls';
import { cloneTemplateDatabase, type TestDb } from '../support/database';

let database: TestDb;
beforeAll(async () => {
  database = await cloneTemplateDatabase();
});
afterAll(() => database.drop());

const NOW = Date.UTC(2026, 10, 24, 15, 0);
const CONFIRM_WAIT_MS = 10 * 60_000;
let next = 0;

async function request(state: string, tokenSymbol: string, updatedAt: number): Promise<string> {
  next += 1;
  const id = `ir-attention-${next}`;
  await database.db.query(
    `INSERT INTO partner_requests (issuer_request_id, kind, state, chain, underlying_symbol, token_symbol, wallet, tokenization_request_id, updated_at)
     VALUES ($1, 'mint', $2, 'ethereum-1', $3, $4, $5, $6, $7)`,
    [id, state, tokenSymbol.replace(/on$/, ''), tokenSymbol, `0x${'ab'.repeat(20)}`, `tr-attention-${next}`, new Date(updatedAt)],
  );
  return id;
}

const attention = async () =>
  Object.fromEntries((await requestsNeedingAttention(database.db, { now: NOW, confirmWaitMs: CONFIRM_WAIT_MS, limit: 50 })).map((row) => [row.issuerRequestId, row.why]));

test('in review, waiting too long for the confirm and rejected today are listed; the rest is not', async () => {
  const review = await request('needs_review', 'AAPLon', NOW - 3_600_000);
  const waiting = await request('created', 'AAPLon', NOW - CONFIRM_WAIT_MS - 1_000);
  const fresh = await request('created', 'AAPLon', NOW - 1_000);
  const rejected = await request('rejected', 'AAPLon', NOW - 1_000);
  const rejectedYesterday = await request('rejected', 'AAPLon', NOW - 24 * 3_600_000);
  const confirmed = await request('confirmed', 'TSLAon', NOW - 1_000);
  const listed = await attention();
  expect(listed).toMatchObject({ [review]: 'needs review', [waiting]: "waiting for the broker's confirm", [rejected]: 'rejected today' });
  for (const id of [fresh, rejectedYesterday, confirmed]) expect(listed[id]).toBeUndefined();
});

test('a confirmed mint is held by a pause of the market, or of its own asset while the pause is in force', async () => {
  const held = await request('confirmed', 'MSFTon', NOW - 1_000);
  const other = await request('confirmed', 'NVDAon', NOW - 1_000);
  expect((await attention())[held]).toBeUndefined();

  await setMarketPaused(database.db, true, 'drill');
  expect(await attention()).toMatchObject({ [held]: 'held by a pause', [other]: 'held by a pause' });
  await setMarketPaused(database.db, false, null);

  const event = { symbol: 'MSFTon', code: 'ASSET_PAUSED', type: 'unscheduled', reason: 'halt', updateSharesMultiplier: false } as const;
  await insertAssetEvent(database.db, { ...event, startsAt: NOW + 60_000, endsAt: null });
  await insertAssetEvent(database.db, { ...event, startsAt: NOW - 120_000, endsAt: NOW - 60_000 });
  expect((await attention())[held]).toBeUndefined();
  await insertAssetEvent(database.db, { ...event, startsAt: NOW - 60_000, endsAt: null });
  const listed = await attention();
  expect(listed[held]).toBe('held by a pause');
  expect(listed[other]).toBeUndefined();
});
