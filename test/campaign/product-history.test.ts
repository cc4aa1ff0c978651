/**
 * The campaign checker on a history the product itself wrote (the partner stack: API, worker, chain watcher, hedges
 * and reserves against the brokerage sandbox, one anvil chain): a partner mint and an attestation executed on chain,
 * hedged and filled, with the reserves computed once nothing is in flight, hold every invariant, on chain included —
 * the checker reads the tables as the product writes them. A stablecoin transfer to the token manager outside any
 * execution is then named.
 */
import { encodeFunctionData, maxUint256, parseUnits, type Hex } from 'viem';
import { checkInvariants } from '../../campaign/invariants';
import { stablecoinAbi, tokenManagerAbi } from '../../contracts/abi';
import { latestReserveSnapshot } from '../../db/queries/reserves';
import { Decimal } from '../../domain/money';
import { brokerGet, brokerPost, ISSUER_ID, startPartnerStack, type PartnerStack } from '../partner/support';
import { eventually } from '../support/eventually';
import { quoteOf, signatureOf } from '../support/quotes';

const CAPS = { offhoursGlobalExposure: '1000000', offhoursAssetExposure: '250000' };

let stack: PartnerStack;

beforeAll(async () => {
  stack = await startPartnerStack();
  const { stablecoin, tokenManager } = stack.chain.deployment;
  const wallet = stack.chain.walletOf(3);
  await stack.chain.client.waitForTransactionReceipt({
    hash: await stack.chain.walletOf(0).writeContract({ address: stablecoin, abi: stablecoinAbi, functionName: 'mint', args: [wallet.account.address, parseUnits('1000000', 6)] }),
  });
  await stack.chain.client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: stablecoin, abi: stablecoinAbi, functionName: 'approve', args: [tokenManager, maxUint256] }) });
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

const check = () => checkInvariants(stack.database.db, { caps: CAPS, chains: { 'ethereum-1': stack.chain.client } });

/** Sends a transaction from the enabled wallet (anvil account 3) and waits for its success. */
async function send(to: Hex, data: Hex): Promise<Hex> {
  const hash = await stack.chain.walletOf(3).sendTransaction({ to, data, gas: 600_000n });
  expect((await stack.chain.client.waitForTransactionReceipt({ hash })).status).toBe('success');
  return hash;
}

test('a partner mint and an executed, hedged attestation hold every invariant; a payment of no execution is named', async () => {
  const minted = await brokerPost(stack, `/v1/accounts/${stack.accountId}/tokenization/mint`, {
    underlying_symbol: 'AAPL',
    qty: '3',
    issuer: ISSUER_ID,
    network: 'ethereum',
    wallet_address: stack.wallet,
  });
  expect(minted.status).toBe(201);
  await eventually(async () => expect((await brokerGet(stack, `/v1/accounts/${stack.accountId}/tokenization/requests/${minted.body.tokenization_request_id}`)).body.status).toBe('completed'), 60_000);

  await stack.database.db.query('UPDATE latest_prices SET observed_at = $1', [Date.now()]);
  const created = await stack.api.http.post('/v1/attestations').set('x-api-key', stack.api.keys.write).send({ symbol: 'SPYon', side: 'buy', tokenAmount: '1.5', duration: 'long' });
  expect(created.status).toBe(200);
  const { tokenManager, stablecoin } = stack.chain.deployment;
  const executed = await send(
    tokenManager,
    encodeFunctionData({ abi: tokenManagerAbi, functionName: 'mintWithAttestation', args: [quoteOf(created.body), signatureOf(created.body), stablecoin, parseUnits('100000', 6)] }),
  );
  await eventually(async () => {
    const read = await stack.api.http.get(`/v1/attestations/${created.body.attestationId}`).set('x-api-key', stack.api.keys.write);
    expect(read.body).toMatchObject({ state: 'executed', executionTxHash: executed });
  }, 60_000);
  // Settled: the hedge filled and a reserves computation since sees SPY and AAPL with nothing in flight.
  await eventually(async () => {
    const snapshot = await latestReserveSnapshot(stack.database.db);
    for (const symbol of ['SPYon', 'AAPLon']) {
      const asset = snapshot?.assets.find((entry) => entry.symbol === symbol);
      expect(asset).toMatchObject({ inFlight: { redemptions: '0', partnerMints: '0' } });
      expect(new Decimal(asset!.tokens.total).gt(0) && new Decimal(asset!.inFlight.hedges).abs().lt('1e-9')).toBe(true);
    }
  }, 60_000);
  const { rows } = await stack.database.db.query(`SELECT count(*)::int AS n FROM hedge_obligations WHERE tx_hash = $1 AND batch_id IS NOT NULL`, [executed]);
  expect(rows).toEqual([{ n: 1 }]);
  expect(await check()).toEqual([]);

  const stray = await send(stablecoin, encodeFunctionData({ abi: stablecoinAbi, functionName: 'transfer', args: [tokenManager, 1n] }));
  await eventually(async () => {
    expect((await check()).map((violation) => [violation.rule, violation.records.txHash, violation.records.moved])).toEqual([
      ["the token manager's stablecoin moved outside any final execution", stray, '0.000001'],
    ]);
  }, 60_000);
}, 300_000);
