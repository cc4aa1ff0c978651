/**
 * The campaign's broker proxy (campaign/broker-faults.ts) between the workers' broker client (partner/broker-client.ts)
 * and the brokerage sandbox (trading in a regular session at fixed prices), one fault at a time, each healed: healthy
 * it forwards; slow holds a call its delay, past the client's patience, then forwards it; failing answers its status without reaching the sandbox;
 * timeout holds a call until the client gives up; duplicate sends a placement twice (the sandbox answers the second
 * as a replay of the first, one order); partial makes the sandbox fill in slices; reject refuses a placement as the
 * sandbox refuses an order it cannot fill, nothing stored, while reads go through.
 */
import { startBrokerProxy, type BrokerProxy } from '../../campaign/broker-faults';
import { BrokerCallFailed, brokerErrorCode, BrokerClient } from '../../partner/broker-client';
import { sandboxForThisFile, waitFor, type BrokerTestDb, type TestSandbox } from '../broker/support';

let database: BrokerTestDb;
let sandbox: TestSandbox;
let proxy: BrokerProxy;
let client: BrokerClient;

sandboxForThisFile((started) => ({ database, sandbox } = started));

beforeAll(async () => {
  proxy = await startBrokerProxy({ target: sandbox.broker.url, setMaxFillQty: (qty) => sandbox.broker.setMaxFillQty(qty) });
  client = new BrokerClient({ url: proxy.url, accountId: sandbox.issuerAccountId, key: sandbox.issuerCredential.key, secret: sandbox.issuerCredential.secret, timeoutMs: 1_000 });
});

afterEach(() => proxy.set(undefined));

afterAll(async () => {
  await proxy?.stop();
});

const ordersOf = async (clientOrderId: string) =>
  (await database.db.query<{ status: string; filled_qty: string }>('SELECT status, filled_qty::text FROM broker.orders WHERE client_order_id = $1', [clientOrderId])).rows;

async function failure(call: Promise<unknown>): Promise<BrokerCallFailed> {
  const error = await call.then(
    () => undefined,
    (failed: unknown) => failed,
  );
  expect(error).toBeInstanceOf(BrokerCallFailed);
  return error as BrokerCallFailed;
}

test('healthy, it forwards: an order placed through it is the sandbox’s', async () => {
  const order = await client.placeOrder({ symbol: 'AAPL', qty: '1', side: 'buy', type: 'market', client_order_id: 'through' });
  expect(order).toMatchObject({ client_order_id: 'through', status: 'new' });
  expect(await ordersOf('through')).toHaveLength(1);
});

test('slow: a call held past the client’s patience reaches the sandbox after the delay all the same', async () => {
  const before = proxy.forwarded();
  proxy.set({ kind: 'slow', delayMs: 3_000 });
  const failed = await failure(client.placeOrder({ symbol: 'AAPL', qty: '1', side: 'buy', type: 'market', client_order_id: 'late' }));
  expect([failed.status, proxy.forwarded()]).toEqual([undefined, before]);
  expect(await waitFor(async () => ((await ordersOf('late')).length === 1 ? proxy.forwarded() : undefined), 'the late order at the sandbox')).toBe(before + 1);
});

test('failing: its status, never forwarded', async () => {
  const before = proxy.forwarded();
  proxy.set({ kind: 'failing', status: 502 });
  const failed = await failure(client.placeOrder({ symbol: 'AAPL', qty: '1', side: 'buy', type: 'market', client_order_id: 'while-failing' }));
  expect([failed.status, failed.refused]).toEqual([502, false]);
  expect(proxy.forwarded()).toBe(before);
  expect(await ordersOf('while-failing')).toEqual([]);
});

test('timeout: held until the client gives up, never forwarded', async () => {
  const before = proxy.forwarded();
  proxy.set({ kind: 'timeout' });
  const failed = await failure(client.positions());
  expect([failed.status, failed.message]).toEqual([undefined, expect.stringMatching(/timeout|aborted/i)]);
  expect(proxy.forwarded()).toBe(before);
});

test('duplicate: a placement reaches the sandbox twice, the second answered (a replay of the one order)', async () => {
  const before = proxy.forwarded();
  proxy.set({ kind: 'duplicate' });
  const order = await client.placeOrder({ symbol: 'MSFT', qty: '1', side: 'buy', type: 'market', client_order_id: 'twice' });
  expect(proxy.forwarded()).toBe(before + 2);
  expect(order.client_order_id).toBe('twice');
  expect(await ordersOf('twice')).toHaveLength(1);
});

test('partial: the sandbox fills in slices of the fault’s size; healed, whole orders again', async () => {
  proxy.set({ kind: 'partial', maxFillQty: '1' });
  await client.placeOrder({ symbol: 'TSLA', qty: '2.5', side: 'buy', type: 'market', client_order_id: 'in-slices' });
  await waitFor(async () => ((await ordersOf('in-slices'))[0]?.status === 'partially_filled' ? true : undefined), 'a partial fill');
  const slices = await waitFor(async () => {
    const { rows } = await database.db.query<{ qty: string }>(
      'SELECT j.qty::text FROM broker.journal j JOIN broker.orders o USING (order_id) WHERE o.client_order_id = $1 ORDER BY j.journal_id',
      ['in-slices'],
    );
    return rows.length === 3 ? rows.map((row) => Number(row.qty)) : undefined;
  }, 'three slices');
  expect(slices).toEqual([1, 1, 0.5]);
  proxy.set(undefined);
  await client.placeOrder({ symbol: 'TSLA', qty: '2.5', side: 'buy', type: 'market', client_order_id: 'whole' });
  await waitFor(async () => ((await ordersOf('whole'))[0]?.status === 'filled' ? true : undefined), 'the whole order filled');
  const { rows } = await database.db.query('SELECT 1 FROM broker.journal j JOIN broker.orders o USING (order_id) WHERE o.client_order_id = $1', ['whole']);
  expect(rows).toHaveLength(1);
});

test('reject: a placement refused as an order the sandbox cannot fill, nothing stored; reads go through', async () => {
  proxy.set({ kind: 'reject' });
  const failed = await failure(client.placeOrder({ symbol: 'NVDA', qty: '1', side: 'buy', type: 'market', client_order_id: 'rejected' }));
  expect([failed.status, failed.refused, brokerErrorCode(failed)]).toEqual([422, true, 'SYMBOL_NOT_TRADABLE']);
  expect(await ordersOf('rejected')).toEqual([]);
  expect(await client.positions()).toEqual(expect.any(Array));
});
