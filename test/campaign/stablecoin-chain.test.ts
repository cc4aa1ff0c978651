/**
 * The campaign checker's invariant 7 on a real EVM chain (anvil, the product's contracts deployed): the token manager's
 * stablecoin moved in a final execution's transaction is what the contract charges for it (rounded up for a buy), the
 * issuer's funding of its reserve is no payment, and any other movement — unexplained, or other than owed — is named
 * with its transaction and both amounts.
 */
import { createWalletClient, http, type Hex } from 'viem';
import { checkStablecoinOnChains, settlementAmount } from '../../campaign/money-invariants';
import { stablecoinAbi } from '../../contracts/abi';
import { startTestChain, type TestChain } from '../support/chains';
import { cloneTemplateDatabase, type TestDb } from '../support/database';

let database: TestDb;
let chain: TestChain;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  chain = await startTestChain(database.db);
}, 120_000);

afterAll(async () => {
  await chain?.stop();
  await database?.drop();
});

const E18 = 10n ** 18n;
/** 2 tokens at 100.00000025: 200.0000005 USD, charged 200.000001 (6 decimals, rounded up). */
const QUANTITY = 2n * E18;
const PRICE = 100_00000025n * 10n ** 10n;

/** Sends the stablecoin from `from` (the issuer mints, a wallet transfers) and mines it; answers the hash. */
async function stablecoin(from: 'issuer' | number, to: Hex, amount: bigint): Promise<Hex> {
  const transport = http(chain.context.network.rpcUrl);
  const wallet = from === 'issuer' ? createWalletClient({ account: chain.issuer, chain: chain.walletOf(1).chain, transport }) : chain.walletOf(from);
  const hash = await wallet.writeContract({
    address: chain.deployment.stablecoin as Hex,
    abi: stablecoinAbi,
    functionName: from === 'issuer' ? 'mint' : 'transfer',
    args: [to, amount],
  });
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return hash;
}

/** A final buy recorded by the watcher for `txHash`, and the watcher's final block at the chain's head. */
async function recordFinalBuy(txHash: Hex, attestationId: number, quantity = QUANTITY): Promise<void> {
  const receipt = await chain.client.getTransactionReceipt({ hash: txHash });
  await database.db.query(
    `INSERT INTO trade_executions (chain, tx_hash, log_index, block_number, block_hash, execution_id, attestation_id, user_id, side, asset, price, quantity, executed_at, status)
     VALUES ('ethereum-1', $1, 0, $2, $3, $4, $4, 'u', 'buy', '0x', $5, $6, 0, 'final')`,
    [txHash, receipt.blockNumber.toString(), receipt.blockHash, attestationId, PRICE.toString(), quantity.toString()],
  );
}

async function finalAtHead(): Promise<void> {
  await database.db.query(`UPDATE chain_cursors SET final_block = $1 WHERE chain = 'ethereum-1'`, [(await chain.client.getBlockNumber()).toString()]);
}

const check = () => checkStablecoinOnChains(database.db, { 'ethereum-1': chain.client });

test('the settlement is rounded toward the issuer: a buy up, a sell down', () => {
  expect(settlementAmount('buy', QUANTITY, PRICE, 6)).toBe(200_000_001n);
  expect(settlementAmount('sell', QUANTITY, PRICE, 6)).toBe(200_000_000n);
  expect(settlementAmount('buy', QUANTITY, 100n * E18, 6)).toBe(200_000_000n);
});

test("a buy's payment adds up; the reserve's funding is none; a payment of no execution, or other than owed, is named", async () => {
  const tokenManager = chain.deployment.tokenManager as Hex;
  const user = chain.walletOf(1).account.address;
  await stablecoin('issuer', user, 1_000_000_000n);
  await stablecoin('issuer', tokenManager, 5_000_000_000n);
  const paid = await stablecoin(1, tokenManager, 200_000_001n);
  await recordFinalBuy(paid, 1);
  await finalAtHead();
  expect(await check()).toEqual([]);

  const unexplained = await stablecoin(1, tokenManager, 5n);
  const short = await stablecoin(1, tokenManager, 200_000_000n);
  await recordFinalBuy(short, 2);
  await finalAtHead();
  expect(await check()).toEqual([
    {
      invariant: '7 stablecoin',
      rule: "the token manager's stablecoin moved outside any final execution",
      records: { chain: 'ethereum-1', txHash: unexplained, attestationIds: '', expected: '0', moved: '0.000005' },
    },
    {
      invariant: '7 stablecoin',
      rule: "the token manager's stablecoin moved other than its executions owe",
      records: { chain: 'ethereum-1', txHash: short, attestationIds: '2', expected: '200.000001', moved: '200' },
    },
  ]);
});

test('what is above the final block is not judged yet', async () => {
  await database.db.query(`DELETE FROM trade_executions`);
  await finalAtHead();
  const before = (await check()).length;
  await stablecoin(1, chain.deployment.tokenManager as Hex, 7n);
  expect(await check()).toHaveLength(before);
  await finalAtHead();
  expect(await check()).toHaveLength(before + 1);
});
