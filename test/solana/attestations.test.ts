/**
 * Solana attestations end to end on the local ledger, through its JSON-RPC: `npm start`'s set-up (mints, treasury,
 * nonce pool registered into the pool table, development wallets), the real app issuing `POST /v1/attestations` on
 * solana-900, and the real worker running the attestation workflow with the nonce activities on the same ledger.
 * A development wallet completes the transaction in `additionalData` with @solana/kit and sends it: a buy and a sell
 * land and move exactly the amounts; one never sent expires on chain (its nonce advanced by the workflow before its
 * limits return, its transaction refused after); a wallet off the allow-list, an exhausted pool and an idempotent
 * replay answer as documented. SPYon trades in every session, so the tests run at any hour.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createKeyPairFromBytes,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type Address,
} from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { createActivities } from '../../activities';
import { rpcNonceLedger } from '../../chains/solana-ledger';
import { findActiveApiKey } from '../../db/queries/api-keys';
import { findHeldNonceAccount } from '../../db/queries/solana-nonces';
import { CATALOGUE } from '../../domain/catalogue';
import { quietLogger } from '../../harness/settings';
import { signSolanaMessage } from '../../signing/solana';
import { startSolanaLedger, type SolanaLedger } from '../../solana-ledger';
import { listSolanaDevWallets } from '../../start/dev-wallets';
import { registerNoncePool } from '../../start/solana';
import { ensureSolanaSetup, type SolanaDevWallet, type SolanaSetupParameters, type SolanaStackChain } from '../../start/solana-setup';
import { attestationExecutedSignal } from '../../temporal/messages';
import { attestationWorkflowId } from '../../temporal/workflow-ids';
import { createTestApi, testSolanaAccounts, testSolanaSecretKey, type TestApi } from '../support/api';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { rpcCall, rpcResult } from '../support/solana';
import { eventually, recordProductHistory, startProductTemporal, type ProductTemporal } from '../support/temporal';

const SYMBOL = 'SPYon';
const NONCE_POOL_SIZE = 6;
const TTL_MS = 30_000;
const SETTLEMENT_GRACE_MS = 10 * 60_000;

let directory: string;
let ledger: SolanaLedger;
let setup: { chain: SolanaStackChain; wallets: SolanaDevWallet[] };
let database: TestDb;
let temporal: ProductTemporal;
let api: TestApi;
let accountId: string;

/** npm start's Solana set-up on the test's ledger, for the test signer's key. */
function setupParameters(): SolanaSetupParameters {
  return {
    rpcUrl: ledger.rpcUrl,
    issuerSecretKey: testSolanaSecretKey(),
    symbols: CATALOGUE.map((asset) => asset.symbol),
    noncePoolSize: NONCE_POOL_SIZE,
    faucet: true,
    wallets: true,
    logger: quietLogger(),
  };
}

/** Cases that skip the service's time run only against the in-memory service. */
const withTimeSkipping = process.env.TEMPORAL_ADDRESS ? test.skip : test;

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'solana-attestations-'));
  ledger = await startSolanaLedger({ stateDirectory: path.join(directory, 'solana'), slotMs: 20, confirmedLag: 1, finalizedLag: 3 });
  const issuerSecretKey = testSolanaSecretKey();
  setup = await ensureSolanaSetup(setupParameters());
  database = await cloneTemplateDatabase();
  await registerNoncePool(database.db, setup.chain);
  const issuer = { address: setup.chain.mintAuthority as Address, sign: (message: Uint8Array) => signSolanaMessage(issuerSecretKey, message) };
  temporal = await startProductTemporal(createActivities({ db: database.db, solana: { ledger: rpcNonceLedger(ledger.rpcUrl), issuer } }), {
    attestationsIn: database.db,
  });
  api = await createTestApi({ database, temporal: temporal.client, taskQueue: temporal.taskQueue, offLedgerNonceAccounts: 0 });
  accountId = (await findActiveApiKey(database.db, api.keys.write))!.accountId!;
  await listSolanaDevWallets(database.db, { accountId, wallets: setup.wallets });
}, 120_000);

afterAll(async () => {
  await temporal?.teardown();
  await ledger?.stop();
  await database?.drop();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

beforeEach(() => api.tradeAt(Date.now()));

const attest = (body: object, idempotencyKey?: string) => {
  const call = api.http.post('/v1/attestations').set('x-api-key', api.keys.write);
  return (idempotencyKey ? call.set('Idempotency-Key', idempotencyKey) : call).send({ symbol: SYMBOL, chainId: 'solana-900', ...body });
};

/** The user's wallet signs the issuer's partially signed transaction (additionalData): the wire transaction it sends. */
async function completedBy(wallet: SolanaDevWallet, additionalData: string): Promise<string> {
  const keyPair = await createKeyPairFromBytes(Uint8Array.from(getBase58Encoder().encode(wallet.secretKey)));
  const transaction = getTransactionDecoder().decode(Buffer.from(additionalData, 'base64'));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([keyPair], transaction));
}

/** Sends a wire transaction and waits until it is confirmed; throws the ledger's refusal. */
async function sendAndConfirm(wire: string): Promise<string> {
  const signature = await rpcResult<string>(ledger.rpcUrl, 'sendTransaction', [wire, { encoding: 'base64' }]);
  await eventually(async () => {
    const { value } = await rpcResult<{ value: Array<{ confirmationStatus: string; err: unknown } | null> }>(ledger.rpcUrl, 'getSignatureStatuses', [[signature]]);
    expect(value[0]).toMatchObject({ err: null, confirmationStatus: expect.stringMatching(/^(confirmed|finalized)$/) });
  });
  return signature;
}

async function tokenBalance(owner: string, mint: string): Promise<bigint> {
  const [account] = await findAssociatedTokenPda({ owner: owner as Address, mint: mint as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return balanceOf(account);
}

async function balanceOf(account: string): Promise<bigint> {
  const answer = await rpcCall<{ value: { amount: string } }>(ledger.rpcUrl, 'getTokenAccountBalance', [account, { commitment: 'confirmed' }]);
  return answer.error ? 0n : BigInt(answer.result!.value.amount);
}

async function balances(wallet: SolanaDevWallet) {
  return {
    tokens: await tokenBalance(wallet.address, setup.chain.mints[SYMBOL]!),
    stablecoin: await tokenBalance(wallet.address, setup.chain.stablecoinMint),
    treasury: await balanceOf(setup.chain.treasury),
  };
}

const SCALE = 10n ** 18n;
/** price × quantity (both scaled by 10^18) in the stablecoin's 6 decimals, rounded up (a buy) or down (a sell). */
function stablecoinOf(attestation: { price: string; tokenAmount: string }, rounding: 'up' | 'down'): bigint {
  const divisor = SCALE * SCALE / 10n ** 6n;
  const product = BigInt(attestation.price) * BigInt(attestation.tokenAmount);
  return rounding === 'up' ? (product + divisor - 1n) / divisor : product / divisor;
}

/** Outstanding attestations of SPYon allowed to the account in every session: `count`. */
const limitAttestationsTo = (count: number) => api.db.query('UPDATE session_limits SET max_attestation_count = $2 WHERE symbol = $1', [SYMBOL, count]);

/** The account's SPYon attestations that count as outstanding at the API's clock: unexpired, or expired with their nonce still held. */
async function outstanding(): Promise<number> {
  const { rows } = await api.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM attestations a
      WHERE account_id = $1 AND symbol = $2 AND state = 'outstanding'
        AND (expires_at > $3 OR EXISTS (SELECT 1 FROM solana_nonce_accounts n WHERE n.attestation_id = a.attestation_id))`,
    [accountId, SYMBOL, api.app.services.clock()],
  );
  return rows[0]!.n;
}

describe('a Solana attestation completed by the user', () => {
  test('a buy then a sell, signed by a development wallet and sent, land and move exactly the amounts; the same transaction lands once', async () => {
    const wallet = setup.wallets[0]!;
    const before = await balances(wallet);

    const buy = await attest({ side: 'buy', tokenAmount: '2', userAddress: wallet.address });
    expect(buy.status).toBe(200);
    expect(buy.body.assetAddress).toBe(setup.chain.mints[SYMBOL]);
    const buyWire = await completedBy(wallet, buy.body.additionalData);
    await sendAndConfirm(buyWire);
    const afterBuy = await balances(wallet);
    const paid = stablecoinOf(buy.body, 'up');
    // 2 tokens in the mint's 9 decimals; the price of 2 in the stablecoin, rounded up, from the wallet to the treasury.
    expect(afterBuy).toEqual({ tokens: before.tokens + 2_000_000_000n, stablecoin: before.stablecoin - paid, treasury: before.treasury + paid });
    // Sent again, the same transaction is refused: its nonce moved when it landed.
    expect((await rpcCall(ledger.rpcUrl, 'sendTransaction', [buyWire, { encoding: 'base64' }])).error).toBeDefined();

    const sell = await attest({ side: 'sell', tokenAmount: '1.5', userAddress: wallet.address });
    expect(sell.status).toBe(200);
    await sendAndConfirm(await completedBy(wallet, sell.body.additionalData));
    const received = stablecoinOf(sell.body, 'down');
    expect(await balances(wallet)).toEqual({ tokens: afterBuy.tokens - 1_500_000_000n, stablecoin: afterBuy.stablecoin + received, treasury: afterBuy.treasury - received });
  });

  withTimeSkipping('once executed, its workflow records it and gives its nonce account back to the pool with the value the transaction left', async () => {
    const wallet = setup.wallets[1]!;
    const buy = await attest({ side: 'buy', tokenAmount: '1', userAddress: wallet.address });
    expect(buy.status).toBe(200);
    const held = (await findHeldNonceAccount(api.db, buy.body.attestationId))!;
    const signature = await sendAndConfirm(await completedBy(wallet, buy.body.additionalData));
    // What the chain watcher reports once the execution is final (the Solana watcher's own tests cover that it does).
    const handle = temporal.client.workflow.getHandle(attestationWorkflowId(buy.body.attestationId));
    await eventually(() => handle.describe());
    await handle.signal(attestationExecutedSignal, { txHash: signature, executedAt: Date.now() });
    expect(await handle.result()).toMatchObject({ state: 'executed', txHash: signature });
    await recordProductHistory('attestation-solana-executed', handle);
    const { rows } = await api.db.query('SELECT state, nonce, attestation_id FROM solana_nonce_accounts WHERE address = $1', [held.address]);
    expect(rows).toEqual([{ state: 'free', nonce: expect.not.stringMatching(held.nonce), attestation_id: null }]);
    expect(rows[0].nonce).toBe(await rpcNonceLedger(ledger.rpcUrl).readNonce(held.address as Address));
  });
});

describe('the Solana mints', () => {
  test('are the assets\' solana-900 addresses the API serves, the mints the set-up made on the ledger', async () => {
    const one = (await api.http.get(`/v1/assets/${SYMBOL}/addresses`).set('x-api-key', api.keys.read)).body;
    expect(one.addresses).toContainEqual({ networkChainId: 'solana-900', address: setup.chain.mints[SYMBOL], decimals: 9 });
    const all = (await api.http.get('/v1/assets/all/addresses').set('x-api-key', api.keys.read)).body as { symbol: string; addresses: { networkChainId: string; address: string }[] }[];
    const onSolana = Object.fromEntries(all.map((entry) => [entry.symbol, entry.addresses.find((address) => address.networkChainId === 'solana-900')?.address]));
    const { USD: _stablecoin, ...stockMints } = setup.chain.mints;
    expect(onSolana).toEqual(stockMints);
    // Each is a mint on the ledger, the issuer its authority.
    const { value } = await rpcResult<{ value: { owner: string } | null }>(ledger.rpcUrl, 'getAccountInfo', [setup.chain.mints[SYMBOL], { encoding: 'base64' }]);
    expect(value?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
  });
});

describe('refusals and replays', () => {
  test('a wallet the account has not listed is refused INVALID_ADDRESS when the account requires the list, and holds no nonce', async () => {
    await api.http.put(`/v1/accounts/${accountId}/allow-list`).set('x-api-key', api.keys.admin).send({ required: true }).expect(200);
    try {
      const free = async () => (await api.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM solana_nonce_accounts WHERE state = 'free'`)).rows[0]!.n;
      const freeBefore = await free();
      const stranger = (await testSolanaAccounts()).issuer;
      const refused = await attest({ side: 'buy', tokenAmount: '1', userAddress: stranger });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('INVALID_ADDRESS');
      expect(await free()).toBe(freeBefore);
      // The development wallets are listed for the account: theirs are issued.
      expect((await attest({ side: 'buy', tokenAmount: '1', userAddress: setup.wallets[0]!.address })).status).toBe(200);
    } finally {
      await api.http.put(`/v1/accounts/${accountId}/allow-list`).set('x-api-key', api.keys.admin).send({ required: false }).expect(200);
    }
  });

  test('a replay of an Idempotency-Key answers the same transaction, holding one nonce', async () => {
    const body = { side: 'buy', tokenAmount: '1', userAddress: setup.wallets[0]!.address };
    const first = await attest(body, 'solana-replay-1');
    expect(first.status).toBe(200);
    const again = await attest(body, 'solana-replay-1');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const { rows } = await api.db.query<{ n: number }>('SELECT count(*)::int AS n FROM solana_nonce_accounts WHERE attestation_id = $1', [first.body.attestationId]);
    expect(rows[0]!.n).toBe(1);
  });

  test('with every nonce account held, an attestation is refused 503 NONCE_POOL_EXHAUSTED with Retry-After, and nothing is stored', async () => {
    const body = { side: 'buy', tokenAmount: '1', userAddress: setup.wallets[0]!.address };
    // Only the pool may refuse here, not the account's count of outstanding attestations.
    await limitAttestationsTo(100);
    let refused: Awaited<ReturnType<typeof attest>> | undefined;
    for (let taken = 0; taken <= NONCE_POOL_SIZE && !refused; taken += 1) {
      const response = await attest(body);
      if (response.status !== 200) refused = response;
    }
    expect(refused!.status).toBe(503);
    expect(refused!.body.code).toBe('NONCE_POOL_EXHAUSTED');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused!.headers['retry-after'])).toBeLessThanOrEqual(60);
    const { rows } = await api.db.query<{ free: number; stored: number }>(
      `SELECT (SELECT count(*)::int FROM solana_nonce_accounts WHERE state = 'free') AS free,
              (SELECT count(*)::int FROM attestations a WHERE chain = 'solana-900'
                  AND NOT EXISTS (SELECT 1 FROM solana_nonce_accounts n WHERE n.attestation_id = a.attestation_id)
                  AND a.state = 'outstanding' AND a.expires_at > $1) AS stored`,
      [Date.now()],
    );
    // No account left free, and no outstanding Solana attestation without its nonce.
    expect(rows[0]).toEqual({ free: 0, stored: 0 });
  });
});

describe('a Solana attestation never sent', () => {
  withTimeSkipping('expires on chain: its workflow advances the nonce by its expiry, then its limits return and its transaction is refused by the ledger', async () => {
    const wallet = setup.wallets[2]!;
    // npm start with a larger pool: the set-up makes the accounts missing, and their registration adds only those.
    setup = await ensureSolanaSetup({ ...setupParameters(), noncePoolSize: NONCE_POOL_SIZE + 2 });
    expect(await registerNoncePool(api.db, setup.chain)).toBe(2);
    // One more than what the account has outstanding: the next attestation reaches the limit.
    await limitAttestationsTo((await outstanding()) + 1);
    try {
      const issuedAt = Date.now();
      const first = await attest({ side: 'buy', tokenAmount: '1', userAddress: wallet.address });
      expect(first.status).toBe(200);
      const wire = await completedBy(wallet, first.body.additionalData);
      const held = (await findHeldNonceAccount(api.db, first.body.attestationId))!;
      expect(held.state).toBe('held');

      // Past its expiry by the API's clock, but its nonce not advanced yet: it still counts, since its transaction could land.
      await api.tradeAt(issuedAt + TTL_MS + 1_000);
      const refused = await attest({ side: 'buy', tokenAmount: '1', userAddress: wallet.address });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('MAX_ATTESTATIONS');

      // The workflow's expiry: by then the nonce is advanced on the ledger (a second before it, the advance has been
      // made) and the account given back with the new value.
      await temporal.timeSkipping!.skip(TTL_MS - 1_000);
      await eventually(async () => expect(await findHeldNonceAccount(api.db, first.body.attestationId)).toBeUndefined(), 30_000);
      const onChain = await rpcNonceLedger(ledger.rpcUrl).readNonce(held.address as Address);
      expect(onChain).not.toBe(held.nonce);
      const { rows } = await api.db.query('SELECT state, nonce FROM solana_nonce_accounts WHERE address = $1', [held.address]);
      expect(rows).toEqual([{ state: 'free', nonce: onChain }]);

      // Its transaction, completed by the wallet, can never land now.
      const sent = await rpcCall(ledger.rpcUrl, 'sendTransaction', [wire, { encoding: 'base64' }]);
      expect(sent.error).toBeDefined();
      // Its limits are free: the next attestation is issued.
      const next = await attest({ side: 'buy', tokenAmount: '1', userAddress: wallet.address });
      expect(next.status).toBe(200);

  
      // After the settlement grace, the workflow records it expired.
      await temporal.timeSkipping!.skip(SETTLEMENT_GRACE_MS);
      const handle = temporal.client.workflow.getHandle(attestationWorkflowId(first.body.attestationId));
      expect(await handle.result()).toMatchObject({ state: 'expired' });
      // The advance was asked for before the expiry, by the workflow's own clock.
      const events = (await handle.fetchHistory()).events ?? [];
      const advance = events.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'advanceAttestationNonce');
      const askedAt = Number(advance!.eventTime!.seconds) * 1_000 + Math.floor((advance!.eventTime!.nanos ?? 0) / 1e6);
      expect(askedAt).toBeLessThan(Number(first.body.expiration) * 1_000);
      await recordProductHistory('attestation-solana-expired-advanced-before', handle);
    } finally {
      await limitAttestationsTo(100);
    }
  }, 60_000);
});
