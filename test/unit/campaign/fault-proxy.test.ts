/**
 * The campaign's TCP fault proxy (campaign/fault-proxy.ts) in front of a real anvil chain's JSON-RPC: healthy, calls
 * go through; with latency past a client's patience they fail, and answer again once healed; with every connection
 * cut, a new one is closed at once and an open one within the next tick; healed, calls go through again. The chain
 * is stopped whatever happens.
 */
import { connect, type Socket } from 'node:net';
import { startAnvil, type RunningAnvil } from '../../../chains/anvil';
import { startLinkProxy, type LinkProxy } from '../../../campaign/fault-proxy';
import { seededRandom } from '../../../campaign/random';
import { eventually } from '../../support/eventually';

let anvil: RunningAnvil | undefined;
let proxy: LinkProxy;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31_337 });
  const { hostname, port } = new URL(anvil.rpcUrl);
  proxy = await startLinkProxy({ name: 'test→anvil', target: { host: hostname, port: Number(port) }, random: seededRandom(1, 'links') });
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await anvil?.stop();
});

afterEach(() => proxy.set(undefined));

/** eth_chainId through the proxy, given up after `timeoutMs`. */
async function chainId(timeoutMs = 5_000): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${proxy.port}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return Number(((await response.json()) as { result: string }).result);
}

test('healthy, calls go through', async () => {
  expect(await chainId()).toBe(31_337);
});

test('latency past the client’s patience fails the call; healed, it answers', async () => {
  proxy.set({ latencyMs: 3_000 });
  await expect(chainId(1_000)).rejects.toThrow(/timeout|aborted/i);
  proxy.set(undefined);
  await eventually(async () => expect(await chainId()).toBe(31_337), 10_000);
});

test('every connection cut: a new one closed at once, an open one at the next tick; healed, calls go through', async () => {
  const open: Socket = connect(proxy.port, '127.0.0.1');
  const closed = new Promise<void>((resolve) => open.once('close', () => resolve()));
  open.on('error', () => undefined);
  await new Promise<void>((resolve) => open.once('connect', () => resolve()));
  await eventually(async () => expect(proxy.open()).toBe(1));
  proxy.set({ dropRate: 1 });
  await expect(chainId()).rejects.toThrow();
  await closed;
  expect(proxy.open()).toBe(0);
  proxy.set(undefined);
  expect(await chainId()).toBe(31_337);
});
