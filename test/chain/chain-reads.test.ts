/**
 * GET /v1/chains/{chainId}/balances and GET /v1/chains/{chainId}/tokens/{tokenAddress}/info on a local anvil chain with
 * the product's contracts, blocks mined by the test (final four blocks below the head): tokens minted and moved
 * between development wallets, the chain watcher's poll (`scanChain`) run as a worker runs it, and the API answering
 * from what it recorded — a transfer counted once seen, taken back when a reorganisation removes its block, counted
 * once whatever re-scans do — and the token's supply at the last final block, read on chain.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { createWalletClient, getAddress, http, keccak256, parseUnits, stringToHex } from 'viem';
import { createChainWatcherActivities, type ScanChainResult } from '../../activities/chain-watcher';
import { viemChain } from '../../chains/networks';
import { stockTokenAbi } from '../../contracts/abi';
import { chainTokenAddresses } from '../../db/queries/chain-deployments';
import { resetChainCursor } from '../../db/queries/chain-watcher';
import { createTestApi, type TestApi } from '../support/api';
import { startTestChain, type TestChain } from '../support/chains';
import { cloneTemplateDatabase, type TestDb } from '../support/database';

let database: TestDb;
let chain: TestChain;
let api: TestApi;
let tokens: Record<string, `0x${string}`>;
// The polls here record no execution or burn, so the outbox has nothing to deliver: the client never connects.
let temporal: Client;

const GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
const rpc = (method: string, params: unknown[]) => chain.client.request({ method, params } as never);
const get = (path: string) => api.http.get(path).set('x-api-key', api.keys.read);
const holder = (index: number) => chain.walletOf(index).account.address;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  chain = await startTestChain(database.db);
  await rpc('evm_setIntervalMining', [0]);
  await rpc('evm_setAutomine', [true]);
  temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  api = await createTestApi({ database, fixtureDeployments: false, chains: { [chain.chain]: chain.context } });
  tokens = await chainTokenAddresses(database.db, chain.chain);
  // The issuer (the tokens' admin) takes the minter role, so the test can mint without attestations.
  const issuer = issuerWallet();
  for (const symbol of ['AAPLon', 'NVDAon']) {
    await waitFor(await issuer.writeContract({ address: tokens[symbol]!, abi: stockTokenAbi, functionName: 'grantRole', args: [keccak256(stringToHex('MINTER_ROLE')), issuer.account.address] }));
  }
}, 120_000);

afterAll(async () => {
  await temporal?.connection.close().catch(() => undefined);
  await chain?.stop();
  await database?.drop();
});

function issuerWallet() {
  return createWalletClient({ chain: viemChain(chain.context.network), account: chain.issuer, transport: http(chain.context.network.rpcUrl) });
}

async function waitFor(hash: `0x${string}`): Promise<void> {
  expect((await chain.client.waitForTransactionReceipt({ hash })).status).toBe('success');
}

const mint = async (symbol: string, to: `0x${string}`, amount: string) =>
  waitFor(await issuerWallet().writeContract({ address: tokens[symbol]!, abi: stockTokenAbi, functionName: 'mint', args: [to, parseUnits(amount, 18)] }));
const transfer = async (symbol: string, from: number, to: `0x${string}`, amount: string) =>
  waitFor(await chain.walletOf(from).writeContract({ address: tokens[symbol]!, abi: stockTokenAbi, functionName: 'transfer', args: [to, parseUnits(amount, 18)] }));

/** Polls the chain as the watcher's workflow does, until it has caught up with the head. */
async function scan(): Promise<void> {
  const scanner = createChainWatcherActivities({
    db: database.db,
    chains: { [chain.chain]: chain.context },
    temporal,
    taskQueue: 'unused',
    blockRange: 50,
    settlementGraceMs: 60_000,
    hedgeWindowMs: 100,
  });
  const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  for (let polls = 0; polls < 100; polls++) {
    const result = (await environment.run(scanner.scanChain, { chain: chain.chain })) as ScanChainResult;
    if (result.caughtUp) return;
  }
  throw new Error('the watcher did not catch up in 100 polls');
}

/** One token's holders as the API answers them, by address. */
async function holdersOf(symbol: string, query = ''): Promise<Record<string, string>> {
  const response = await get(`/v1/chains/ethereum-1/balances${query}`);
  expect(response.status).toBe(200);
  const entry = response.body.tokens.find((token: { tokenSymbol: string }) => token.tokenSymbol === symbol);
  return Object.fromEntries(entry.balances.map((balance: { holderAddress: { account: string }; balance: string }) => [balance.holderAddress.account, balance.balance]));
}

const lower = (address: string) => address.toLowerCase();

describe('GET /v1/chains/{chainId}/balances', () => {
  test('every holder of each token, as the recorded Transfer logs add up', async () => {
    await mint('AAPLon', holder(1), '5');
    await mint('AAPLon', holder(2), '2.5');
    await mint('NVDAon', holder(1), '0.000000000000000001');
    await transfer('AAPLon', 1, holder(3), '1.25');
    await scan();

    const response = await get('/v1/chains/ethereum-1/balances');
    expect(response.status).toBe(200);
    expect(response.body.tokens).toHaveLength(Object.keys(tokens).length);
    expect(response.body.tokens.find((token: { tokenSymbol: string }) => token.tokenSymbol === 'AAPLon')).toEqual({
      tokenAddress: lower(tokens.AAPLon!),
      tokenSymbol: 'AAPLon',
      balances: [
        { holderAddress: { account: lower(holder(1)) }, balance: '3.75' },
        { holderAddress: { account: lower(holder(2)) }, balance: '2.5' },
        { holderAddress: { account: lower(holder(3)) }, balance: '1.25' },
      ].sort((a, b) => a.holderAddress.account.localeCompare(b.holderAddress.account)),
    });
    expect(await holdersOf('NVDAon')).toEqual({ [lower(holder(1))]: '0.000000000000000001' });
    // What the API answers is what the chain says each holder has.
    for (const index of [1, 2, 3]) {
      const onChain = await chain.client.readContract({ address: tokens.AAPLon!, abi: stockTokenAbi, functionName: 'balanceOf', args: [holder(index)] });
      expect(parseUnits((await holdersOf('AAPLon'))[lower(holder(index))]!, 18)).toBe(onChain);
    }
  });

  test('filters by token, by holder (in any case) and by both', async () => {
    const byToken = await get(`/v1/chains/ethereum-1/balances?tokenAddress=${tokens.NVDAon!.toUpperCase().replace('0X', '0x')}`);
    expect(byToken.body.tokens).toEqual([{ tokenAddress: lower(tokens.NVDAon!), tokenSymbol: 'NVDAon', balances: [{ holderAddress: { account: lower(holder(1)) }, balance: '0.000000000000000001' }] }]);
    expect(await holdersOf('AAPLon', `?userAddress=${holder(3)}`)).toEqual({ [lower(holder(3))]: '1.25' });
    expect(await holdersOf('NVDAon', `?userAddress=${holder(3)}`)).toEqual({});
    const both = await get(`/v1/chains/ethereum-1/balances?tokenAddress=${tokens.AAPLon}&userAddress=${holder(2)}`);
    expect(both.body.tokens).toEqual([{ tokenAddress: lower(tokens.AAPLon!), tokenSymbol: 'AAPLon', balances: [{ holderAddress: { account: lower(holder(2)) }, balance: '2.5' }] }]);
    expect((await get(`/v1/chains/ethereum-1/balances?tokenAddress=0x${'45'.repeat(20)}`)).body).toEqual({ tokens: [] });
  });

  test('a transfer counts once seen; a reorganisation that removes its block takes it back; re-scans count nothing twice', async () => {
    await transfer('AAPLon', 3, holder(2), '0.25');
    await scan();
    expect(await holdersOf('AAPLon', `?userAddress=${holder(3)}`)).toEqual({ [lower(holder(3))]: '1' });
    const { rows: seen } = await database.db.query(`SELECT status FROM token_transfers WHERE chain = 'ethereum-1' ORDER BY block_number DESC LIMIT 1`);
    expect(seen).toEqual([{ status: 'seen' }]);

    await rpc('anvil_reorg', [1, []]);
    await scan();
    expect(await holdersOf('AAPLon')).toEqual({ [lower(holder(1))]: '3.75', [lower(holder(2))]: '2.5', [lower(holder(3))]: '1.25' });
    const { rows: orphaned } = await database.db.query(`SELECT count(*)::int AS n FROM token_transfers WHERE status = 'orphaned'`);
    expect(orphaned).toEqual([{ n: 1 }]);

    // Past finality, then the whole chain scanned again from the deployment: the same balances, every log recorded once.
    await chain.testClient.mine({ blocks: 5 });
    await scan();
    const before = await get('/v1/chains/ethereum-1/balances');
    await resetChainCursor(database.db, chain.chain, chain.deployment.deployedBlock);
    await scan();
    expect((await get('/v1/chains/ethereum-1/balances')).body).toEqual(before.body);
    const { rows } = await database.db.query(`SELECT status, count(*)::int AS n FROM token_transfers GROUP BY status ORDER BY status`);
    expect(rows).toEqual([{ status: 'final', n: 4 }, { status: 'orphaned', n: 1 }]);
  });

  test.each([
    [`/v1/chains/${GENESIS_HASH}/balances`, 503, 'CHAIN_UNAVAILABLE'],
    ['/v1/chains/solana-900/balances', 503, 'CHAIN_UNAVAILABLE'],
    ['/v1/chains/bsc-56/balances', 503, 'CHAIN_UNAVAILABLE'],
    ['/v1/chains/polygon-137/balances', 400, 'INVALID_GM_CHAIN'],
    ['/v1/chains/ethereum-1/balances?userAddress=0x12', 400, 'INVALID_PARAMETER'],
    ['/v1/chains/ethereum-1/balances?tokenAddress=AAPLon', 400, 'INVALID_PARAMETER'],
  ])('%s → %i %s', async (path, status, code) => {
    const response = await get(path);
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
  });
});

describe('GET /v1/chains/{chainId}/tokens/{tokenAddress}/info', () => {
  const info = (address: string) => get(`/v1/chains/ethereum-1/tokens/${address}/info`);

  test("the contract's name, symbol and decimals, and its supply at the last final block", async () => {
    const response = await info(tokens.AAPLon!);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      token: { tokenAddress: lower(tokens.AAPLon!), tokenName: 'Apple Inc.', tokenSymbol: 'AAPLon', tokenDecimals: 18, tokenSupply: { value: '7.5' } },
    });
    // A mint in a block not final yet is not in the supply until that block is.
    await mint('AAPLon', holder(4), '1');
    expect((await info(tokens.AAPLon!)).body.token.tokenSupply).toEqual({ value: '7.5' });
    await chain.testClient.mine({ blocks: 5 });
    expect((await info(tokens.AAPLon!.toUpperCase().replace('0X', '0x'))).body.token.tokenSupply).toEqual({ value: '8.5' });
  });

  test.each([
    [`/v1/chains/ethereum-1/tokens/0x${'45'.repeat(20)}/info`, 404, 'ASSET_NOT_FOUND'],
    [`/v1/chains/${GENESIS_HASH}/tokens/0x${'45'.repeat(20)}/info`, 503, 'CHAIN_UNAVAILABLE'],
    [`/v1/chains/bsc-56/tokens/0x${'45'.repeat(20)}/info`, 503, 'CHAIN_UNAVAILABLE'],
    ['/v1/chains/ethereum-1/tokens/0x12/info', 400, 'INVALID_PARAMETER'],
    ['/v1/chains/ethereum/tokens/0x12/info', 400, 'INVALID_GM_CHAIN'],
  ])('%s → %i %s', async (path, status, code) => {
    const response = await get(path);
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
  });
});

describe('GET /v1/attestations/signers', () => {
  test("publishes the chain's settlement token, its decimals read from the contract", async () => {
    const response = await get('/v1/attestations/signers');
    expect(response.status).toBe(200);
    expect(response.body.evm.settlementTokens).toEqual({ [chain.chain]: { address: getAddress(chain.deployment.stablecoin), decimals: 6 } });
  });
});
