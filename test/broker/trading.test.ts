/**
 * The sandbox's trading side (its clock pinned into a regular session, prices from a table): a market order fills at
 * the sandbox's price after the latency, journals the shares into the account and pays from its cash; a repeated
 * client_order_id answers the first order and never fills twice, concurrently too; a sell never takes a position
 * below zero; a large order fills in slices (partially_filled, then filled) when liquidity is limited, also once it is
 * limited while the sandbox runs (and whole again once unset); a limit
 * order waits until marketable; outside the sessions orders are refused naming the next open; a transition pause
 * between sessions holds an open day order until the next one.
 */
import request from 'supertest';
import { Decimal } from '../../domain/money';
import { pinnedClock } from '../../harness/settings';
import { basic, position, sandboxForThisFile, TEST_PRICES, waitFor, type BrokerTestDb, type TestSandbox } from './support';

let database: BrokerTestDb;
let sandbox: TestSandbox;

sandboxForThisFile((started) => ({ database, sandbox } = started));

const orders = () => `/v1/trading/accounts/${sandbox.issuerAccountId}/orders`;
const place = (body: Record<string, unknown>) =>
  request(sandbox.broker.url).post(orders()).set('authorization', basic(sandbox.issuerCredential)).send({ type: 'market', time_in_force: 'day', ...body });
const get = (path: string) => request(sandbox.broker.url).get(path).set('authorization', basic(sandbox.issuerCredential));
const cash = async () => (await database.db.query<{ balance: string }>('SELECT balance::text FROM broker.cash WHERE account_id = $1', [sandbox.issuerAccountId])).rows[0]!.balance;

async function filled(id: string): Promise<Record<string, string>> {
  return waitFor(async () => {
    const order = (await get(`${orders()}/${id}`)).body as Record<string, string>;
    return order.status === 'filled' ? order : undefined;
  }, `order ${id} filled`);
}

test('a market buy fills at the price after the latency: shares journalled in, cash paid, the position listed', async () => {
  const cashBefore = new Decimal(await cash());
  const placed = await place({ symbol: 'AAPL', qty: '2.5', side: 'buy', client_order_id: 'buy-1' });
  expect(placed.status).toBe(201);
  expect(placed.body).toMatchObject({ client_order_id: 'buy-1', symbol: 'AAPL', qty: '2.5', side: 'buy', type: 'market', status: 'new', filled_qty: '0', filled_at: null });
  const order = await filled(placed.body.id);
  expect(order).toMatchObject({ filled_qty: '2.5', filled_avg_price: TEST_PRICES.AAPL });
  expect(new Decimal(await position(database.db, sandbox.issuerAccountId, 'AAPL')).toFixed()).toBe('2.5');
  expect(cashBefore.minus(await cash()).toFixed(2)).toBe(new Decimal('2.5').times(TEST_PRICES.AAPL!).toDecimalPlaces(2, Decimal.ROUND_UP).toFixed(2));
  const positions = await get(`/v1/trading/accounts/${sandbox.issuerAccountId}/positions`);
  expect(positions.body).toContainEqual({ symbol: 'AAPL', qty: '2.5' });
  const listed = await get(`${orders()}?status=closed&symbols=AAPL`);
  expect(listed.body.map((entry: { id: string }) => entry.id)).toContain(placed.body.id);
  expect((await get(`${orders()}?status=open`)).body).toEqual([]);
});

test('a repeated client_order_id answers the first order, also ten at once; other fields under it are 422', async () => {
  const body = { symbol: 'MSFT', qty: '1', side: 'buy', client_order_id: 'buy-twice' };
  const answers = await Promise.all(Array.from({ length: 10 }, () => place(body)));
  expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
  await filled(answers[0]!.body.id);
  const again = await place(body);
  expect(again.status).toBe(200);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.body).toMatchObject({ id: answers[0]!.body.id, status: 'filled' });
  expect(new Decimal(await position(database.db, sandbox.issuerAccountId, 'MSFT')).toFixed()).toBe('1');
  const other = await place({ ...body, qty: '2' });
  expect(other.status).toBe(422);
  expect(other.body.code).toBe('CLIENT_ORDER_ID_REUSED');
});

test('a sell of more than the account holds is refused; a sell it can cover fills and pays in', async () => {
  const refused = await place({ symbol: 'AAPL', qty: '100', side: 'sell', client_order_id: 'sell-too-many' });
  expect(refused.status).toBe(422);
  expect(refused.body.code).toBe('INSUFFICIENT_POSITION');
  const before = new Decimal(await cash());
  const sold = await place({ symbol: 'AAPL', qty: '0.5', side: 'sell', client_order_id: 'sell-half' });
  expect(sold.status).toBe(201);
  await filled(sold.body.id);
  expect(new Decimal(await position(database.db, sandbox.issuerAccountId, 'AAPL')).toFixed()).toBe('2');
  expect(new Decimal(await cash()).minus(before).toFixed(2)).toBe(new Decimal('0.5').times(TEST_PRICES.AAPL!).toFixed(2));
});

test('bad orders are 400 naming the field', async () => {
  for (const [body, code] of [
    [{ symbol: 'AAPL', qty: '1', side: 'hold', client_order_id: 'x1' }, 'INVALID_ORDER'],
    [{ symbol: 'AAPL', qty: '-1', side: 'buy', client_order_id: 'x2' }, 'INVALID_QTY'],
    [{ symbol: 'AAPL', qty: '1', side: 'buy', type: 'limit', client_order_id: 'x3' }, 'INVALID_ORDER'],
    [{ symbol: 'aapl', qty: '1', side: 'buy', client_order_id: 'x4' }, 'INVALID_SYMBOL'],
  ] as const) {
    const response = await place(body);
    expect([body.client_order_id, response.status, response.body.code]).toEqual([body.client_order_id, 400, code]);
  }
  const unknown = await place({ symbol: 'ZZZZ', qty: '1', side: 'buy', client_order_id: 'x5' });
  expect(unknown.body.code).toBe('SYMBOL_NOT_TRADABLE');
});

test('the liquidity of one fill changed while the sandbox runs: slices from then on, whole orders again once unset', async () => {
  sandbox.broker.setMaxFillQty('1');
  const sliced = await place({ symbol: 'AMZN', qty: '2.5', side: 'buy', client_order_id: 'sliced-live' });
  expect(sliced.status).toBe(201);
  await waitFor(async () => ((await get(`${orders()}/${sliced.body.id}`)).body.status === 'partially_filled' ? true : undefined), 'a partial fill');
  await filled(sliced.body.id);
  const { rows } = await database.db.query<{ qty: string }>('SELECT qty::text FROM broker.journal WHERE order_id = $1 ORDER BY journal_id', [sliced.body.id]);
  expect(rows.map((row) => new Decimal(row.qty).toFixed())).toEqual(['1', '1', '0.5']);
  sandbox.broker.setMaxFillQty(undefined);
  const whole = await place({ symbol: 'AMZN', qty: '2.5', side: 'buy', client_order_id: 'whole-again' });
  await filled(whole.body.id);
  const again = await database.db.query<{ qty: string }>('SELECT qty::text FROM broker.journal WHERE order_id = $1', [whole.body.id]);
  expect(again.rows.map((row) => new Decimal(row.qty).toFixed())).toEqual(['2.5']);
});

test('limited liquidity fills in slices; a limit order waits until marketable; a closed market refuses with the next open', async () => {
  await sandbox.broker.stop();
  const prices: Record<string, string> = { ...TEST_PRICES };
  await sandbox.restart({ maxFillQty: '1', marketPrice: async (symbol) => prices[symbol] });
  const large = await place({ symbol: 'TSLA', qty: '3', side: 'buy', client_order_id: 'large' });
  const partial = await waitFor(async () => {
    const order = (await get(`${orders()}/${large.body.id}`)).body;
    return order.status === 'partially_filled' ? order : undefined;
  }, 'a partial fill');
  expect(new Decimal(partial.filled_qty).lt(3)).toBe(true);
  await filled(large.body.id);

  const limit = await place({ symbol: 'NVDA', qty: '1', side: 'buy', type: 'limit', limit_price: '100', client_order_id: 'limit' });
  expect(limit.status).toBe(201);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect((await get(`${orders()}/${limit.body.id}`)).body.status).toBe('new');
  prices.NVDA = '99.5';
  expect(await filled(limit.body.id)).toMatchObject({ filled_avg_price: '99.5' });

  await sandbox.broker.stop();
  // A Saturday noon in New York: the sandbox does not trade until Monday's premarket.
  await sandbox.restart({ clock: pinnedClock(Date.parse('2025-09-06T16:00:00Z')) });
  const closed = await place({ symbol: 'AAPL', qty: '1', side: 'buy', client_order_id: 'weekend' });
  expect(closed.status).toBe(422);
  expect(closed.body.code).toBe('MARKET_CLOSED');
  expect(closed.body.message).toContain('2025-09-08T08:01:00.000Z'); // Monday's premarket opens at 04:01
});

test('a transition pause holds a day order until the next session instead of ending it with the day', async () => {
  const premarket = Date.parse('2025-09-08T13:28:00Z'); // Monday 09:28 New York
  await sandbox.broker.stop();
  await sandbox.restart({ clock: pinnedClock(premarket) });
  const order = await place({ symbol: 'NVDA', qty: '1', side: 'buy', type: 'limit', limit_price: '1', client_order_id: 'through-the-pause' });
  expect(order.status).toBe(201);
  await sandbox.broker.stop();
  // 09:30, inside the 09:29–09:31 pause: the filler puts the order off to the regular open at 09:31.
  await sandbox.restart({ clock: pinnedClock(Date.parse('2025-09-08T13:30:00Z')) });
  const held = await waitFor(async () => {
    const { rows } = await database.db.query<{ status: string; due: number }>(
      'SELECT status, extract(epoch FROM fill_due_at)::float8 * 1000 AS due FROM broker.orders WHERE order_id = $1',
      [order.body.id],
    );
    return rows[0]!.status !== 'new' || rows[0]!.due === Date.parse('2025-09-08T13:31:00Z') ? rows[0] : undefined;
  }, 'the order handled in the pause');
  expect(held).toEqual({ status: 'new', due: Date.parse('2025-09-08T13:31:00Z') });
});
