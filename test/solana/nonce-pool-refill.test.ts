/**
 * The Solana nonce pool kept usable by the worker (activities/solana-nonce-pool.ts), on the local ledger through its
 * JSON-RPC and real PostgreSQL: a refill from an empty table creates the issuer's derived accounts and registers them
 * once, two refills at once included; accounts npm start's set-up made are registered, not made again; the pool grows
 * below its low-water mark up to its maximum (its accounts by state in the metrics); an issuer without SOL is said so; the sweep advances and frees an
 * account its expired attestation's workflow left held, after which that attestation's transaction cannot land.
 */
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createKeyPairSignerFromPrivateKeyBytes, type Address } from '@solana/kit';
import { getNonceSize, getTransferSolInstruction } from '@solana-program/system';
import { createSolanaNoncePoolActivities, type NoncePoolRefill, type SolanaNoncePoolSettings } from '../../activities/solana-nonce-pool';
import { holdSolanaNonce } from '../../attestations/solana-nonce-pool';
import { solanaIssuerSigner, solanaNonceSigner } from '../../chains/solana-accounts';
import { rpcNonceLedger } from '../../chains/solana-ledger';
import { createLogger } from '../../config/logger';
import { countNonceAccounts, findHeldNonceAccount, listNonceAccountAddresses } from '../../db/queries/solana-nonces';
import { solanaNonceRefills } from '../../metrics/metrics';
import { createProcessMetrics } from '../../metrics/process-metrics';
import { startSolanaLedger, type SolanaLedger } from '../../solana-ledger';
import { ensureSolanaSetup } from '../../start/solana-setup';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually } from '../support/eventually';
import { rpcCall, rpcResult, signedTransaction } from '../support/solana';

const SOL = 1_000_000_000n;
const FEE = 5_000n;
let database: TestDb;
const running: SolanaLedger[] = [];

beforeAll(async () => {
  database = await cloneTemplateDatabase();
});
afterAll(() => database.drop());
beforeEach(() => database.db.query('TRUNCATE solana_nonce_accounts'));
afterEach(async () => {
  await Promise.all(running.splice(0).map((ledger) => ledger.stop()));
});

/** The ledger in this process: slots every 20 ms (or by hand), `finalized` 3 slots behind. */
async function ledger(slotMs = 20): Promise<SolanaLedger> {
  const started = await startSolanaLedger({ slotMs, confirmedLag: 1, finalizedLag: 3 });
  running.push(started);
  return started;
}

function issuerSecretKey(): Uint8Array {
  const seed = randomBytes(32);
  return new Uint8Array([...seed, ...ed25519.getPublicKey(seed)]);
}

async function balance(url: string, address: string): Promise<bigint> {
  return BigInt((await rpcResult<{ value: number }>(url, 'getBalance', [address, { commitment: 'confirmed' }])).value);
}

/** Airdrops `lamports` to `address` and waits until `confirmed` shows them. */
async function fund(url: string, address: string, lamports: bigint): Promise<void> {
  await rpcResult(url, 'requestAirdrop', [address, Number(lamports)]);
  await eventually(async () => expect(await balance(url, address)).toBeGreaterThanOrEqual(lamports));
}

/** The account at `finalized`: its nonce authority and nonce value when it is a nonce account. */
async function nonceOnChain(url: string, address: string): Promise<string | undefined> {
  return rpcNonceLedger(url).readNonce(address as Address);
}

/** What the activities logged at warning and above. */
const logged: string[] = [];

function poolActivities(rpcUrl: string, secretKey: Uint8Array, pool: SolanaNoncePoolSettings) {
  const activities = createSolanaNoncePoolActivities({ db: database.db, rpcUrl, issuerSecretKey: secretKey, pool, finalityTimeoutMs: 30_000 });
  const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('WARN', (entry) => logged.push(`${entry.level} ${entry.message}`)) });
  return {
    refill: () => environment.run(activities.refillSolanaNoncePool) as Promise<NoncePoolRefill>,
    sweep: (pastExpiryMs: number) => environment.run(activities.sweepStuckSolanaNonces, { pastExpiryMs }),
  };
}

async function derivedAddresses(secretKey: Uint8Array, count: number): Promise<string[]> {
  return Promise.all(Array.from({ length: count }, async (_, index) => (await solanaNonceSigner(secretKey, index)).address));
}

describe('refilling the pool', () => {
  test('from an empty table, two refills at once: the derived accounts are created and registered once, with their final nonces', async () => {
    const { rpcUrl } = await ledger();
    const secretKey = issuerSecretKey();
    const issuer = (await solanaIssuerSigner(secretKey)).address;
    await fund(rpcUrl, issuer, 10n * SOL);
    const before = await balance(rpcUrl, issuer);
    const pool = { size: 5, lowWater: 1, max: 10 };

    // Two workers, each with its own activities: one refills, the other finds it under way (or done).
    const outcomes = await Promise.all([poolActivities(rpcUrl, secretKey, pool).refill(), poolActivities(rpcUrl, secretKey, pool).refill()]);
    const added = outcomes.filter((outcome) => outcome.outcome === 'added');
    expect(added).toEqual([{ outcome: 'added', created: 5, found: 0, counts: { free: 5, held: 0, advancing: 0 } }]);
    expect(outcomes.filter((outcome) => outcome.outcome !== 'added').map((outcome) => outcome.outcome)).toEqual([expect.stringMatching(/^(busy|enough)$/)]);

    const expected = await derivedAddresses(secretKey, 5);
    expect([...(await listNonceAccountAddresses(database.db))].sort()).toEqual([...expected].sort());
    for (const address of expected) {
      const registered = await database.db.query<{ nonce: string; authority: string; state: string }>('SELECT nonce, authority, state FROM solana_nonce_accounts WHERE address = $1', [address]);
      expect(registered.rows[0]).toEqual({ nonce: await nonceOnChain(rpcUrl, address), authority: issuer, state: 'free' });
    }
    // Paid once: five accounts' rent, and two transactions (four accounts, then one) each signed by the issuer and its new accounts.
    const rent = BigInt(await rpcResult<number>(rpcUrl, 'getMinimumBalanceForRentExemption', [getNonceSize()]));
    expect(before - (await balance(rpcUrl, issuer))).toBe(5n * rent + FEE * (5n + 2n));

    // Full: a third refill sends nothing.
    expect(await poolActivities(rpcUrl, secretKey, pool).refill()).toEqual({ outcome: 'enough', counts: { free: 5, held: 0, advancing: 0 } });
  });

  test("the accounts npm start's set-up made are registered as they are, and only the missing ones are created", async () => {
    const { rpcUrl } = await ledger();
    const secretKey = issuerSecretKey();
    const issuer = (await solanaIssuerSigner(secretKey)).address;
    await ensureSolanaSetup({ rpcUrl, issuerSecretKey: secretKey, symbols: [], noncePoolSize: 3, faucet: true, wallets: false, logger: createLogger({ level: 'silent' }) });
    const made = await derivedAddresses(secretKey, 3);
    const noncesBefore = await eventually(async () => {
      const nonces = await Promise.all(made.map((address) => nonceOnChain(rpcUrl, address)));
      expect(nonces.every((nonce) => nonce !== undefined)).toBe(true);
      return nonces;
    });
    const before = await balance(rpcUrl, issuer);

    const refill = await poolActivities(rpcUrl, secretKey, { size: 5, lowWater: 1, max: 10 }).refill();
    expect(refill).toEqual({ outcome: 'added', created: 2, found: 3, counts: { free: 5, held: 0, advancing: 0 } });
    for (const [index, address] of made.entries()) {
      expect((await database.db.query('SELECT nonce FROM solana_nonce_accounts WHERE address = $1', [address])).rows[0]).toEqual({ nonce: noncesBefore[index] });
      expect(await nonceOnChain(rpcUrl, address)).toBe(noncesBefore[index]);
    }
    // Only two accounts paid for, in one transaction.
    const rent = BigInt(await rpcResult<number>(rpcUrl, 'getMinimumBalanceForRentExemption', [getNonceSize()]));
    expect(before - (await balance(rpcUrl, issuer))).toBe(2n * rent + FEE * 3n);
  });

  test('below the low-water mark the pool grows until twice as many are free, never past its maximum; an issuer without SOL is told', async () => {
    const { rpcUrl } = await ledger();
    const secretKey = issuerSecretKey();
    const issuer = (await solanaIssuerSigner(secretKey)).address;
    const pool = { size: 2, lowWater: 1, max: 5 };
    const hold = (attestationId: string) => holdSolanaNonce(database.db, { attestationId, expiresAt: Date.now() + 60_000, now: Date.now() });
    const refill = () => poolActivities(rpcUrl, secretKey, pool).refill();

    // No SOL: nothing can be created, and the refill says so (in the metrics as in its answer).
    const unfunded = async () => (await solanaNonceRefills.get()).values.find((value) => value.labels.outcome === 'unfunded')?.value ?? 0;
    const unfundedBefore = await unfunded();
    expect(await refill()).toEqual({ outcome: 'unfunded', found: 0, balance: '0', needed: expect.stringMatching(/^\d+$/), counts: { free: 0, held: 0, advancing: 0 } });
    expect(await unfunded()).toBe(unfundedBefore + 1);
    expect(logged).toContainEqual(expect.stringMatching(new RegExp(`^ERROR Solana nonce pool: the issuer ${issuer} holds 0 lamports, \\d+ are needed to create 2 nonce accounts; fund it$`)));

    await fund(rpcUrl, issuer, 10n * SOL);
    expect(await refill()).toMatchObject({ outcome: 'added', created: 2, counts: { free: 2, held: 0, advancing: 0 } });
    await hold('1');
    expect(await refill()).toMatchObject({ outcome: 'enough', counts: { free: 1, held: 1 } });
    // None free, below the mark of one: grown until two are free.
    await hold('2');
    expect(await refill()).toMatchObject({ outcome: 'added', created: 2, found: 0, counts: { free: 2, held: 2, advancing: 0 } });
    // Again, but one more reaches the maximum of five.
    await hold('3');
    await hold('4');
    expect(await refill()).toMatchObject({ outcome: 'added', created: 1, found: 0, counts: { free: 1, held: 4, advancing: 0 } });
    await hold('5');
    expect(await refill()).toEqual({ outcome: 'at_maximum', counts: { free: 0, held: 5, advancing: 0 } });
    expect(await countNonceAccounts(database.db)).toEqual({ free: 0, held: 5, advancing: 0 });
    // What a scrape of any role shows of the pool.
    const scraped = await createProcessMetrics({ role: 'worker', db: database.db, poolMax: 1 }).metrics();
    expect(scraped.split('\n').filter((line) => line.startsWith('issuer_solana_nonce_accounts{')).sort()).toEqual([
      'issuer_solana_nonce_accounts{state="advancing"} 0',
      'issuer_solana_nonce_accounts{state="free"} 0',
      'issuer_solana_nonce_accounts{state="held"} 5',
    ]);
    expect([...(await listNonceAccountAddresses(database.db))].sort()).toEqual((await derivedAddresses(secretKey, 5)).sort());
  });
});

describe('sweeping accounts left held', () => {
  test('an account held past its expiry is advanced and freed — its attestation can no longer land — and one not yet due is left', async () => {
    // Slots by hand: the advance is sent, seen final only once the test moves the ledger on.
    const solana = await ledger(3_600_000);
    const { rpcUrl } = solana;
    const secretKey = issuerSecretKey();
    const issuerSigner = await solanaIssuerSigner(secretKey);
    await rpcResult(rpcUrl, 'requestAirdrop', [issuerSigner.address, Number(10n * SOL)]);
    const passSlots = (count: number) => {
      for (let slot = 0; slot < count; slot += 1) solana.ledger.advanceSlot();
    };
    passSlots(4);
    const activities = poolActivities(rpcUrl, secretKey, { size: 2, lowWater: 0, max: 2 });
    const filling = activities.refill();
    await eventually(async () => {
      passSlots(1);
      expect(await countNonceAccounts(database.db)).toEqual({ free: 2, held: 0, advancing: 0 });
    }, 20_000);
    await filling;

    const now = Date.now();
    const stuck = await holdSolanaNonce(database.db, { attestationId: '11', expiresAt: now - 600_000, now });
    const due = await holdSolanaNonce(database.db, { attestationId: '12', expiresAt: now + 600_000, now });
    // A transaction over the held nonce, the issuer co-signing, as the stuck attestation's user would send it.
    const payer = await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(7));
    await rpcResult(rpcUrl, 'requestAirdrop', [payer.address, Number(SOL)]);
    passSlots(4);
    const late = await signedTransaction(rpcUrl, payer, [getTransferSolInstruction({ source: issuerSigner, destination: payer.address, amount: 1n })], {
      nonce: stuck.nonce,
      nonceAccount: stuck.nonceAccount as Address,
      nonceAuthority: issuerSigner,
    });

    // Before the sweep it would land.
    const simulated = await rpcResult<{ value: { err: unknown } }>(rpcUrl, 'simulateTransaction', [late, { encoding: 'base64' }]);
    expect(simulated.value.err).toBeNull();

    // The first sweep sends the advance; the finalized nonce has not moved yet, so the account waits for the next.
    expect(await activities.sweep(300_000)).toEqual({ freed: 0, pending: 1 });
    expect(await findHeldNonceAccount(database.db, '11')).toMatchObject({ state: 'advancing', nonce: stuck.nonce });
    // Swept again before that advance is final: it is under way, so nothing more is sent (no fee paid) — another
    // advance would move the nonce past the value the account is freed with.
    const processedBalance = async () => BigInt((await rpcResult<{ value: number }>(rpcUrl, 'getBalance', [issuerSigner.address, { commitment: 'processed' }])).value);
    const balanceBefore = await processedBalance();
    expect(await activities.sweep(300_000)).toEqual({ freed: 0, pending: 1 });
    expect(await processedBalance()).toBe(balanceBefore);
    passSlots(4);
    expect(await activities.sweep(300_000)).toEqual({ freed: 1, pending: 0 });
    const value = await nonceOnChain(rpcUrl, stuck.nonceAccount);
    expect(value).not.toBe(stuck.nonce);
    expect(await findHeldNonceAccount(database.db, '11')).toBeUndefined();
    expect((await database.db.query('SELECT state, nonce FROM solana_nonce_accounts WHERE address = $1', [stuck.nonceAccount])).rows[0]).toEqual({ state: 'free', nonce: value });
    // The attestation's transaction is refused: its nonce is gone.
    const answer = await rpcCall(rpcUrl, 'sendTransaction', [late, { encoding: 'base64' }]);
    expect(answer.error).toBeDefined();

    // The attestation not yet expired keeps its account; sweeping again changes nothing.
    expect(await findHeldNonceAccount(database.db, '12')).toMatchObject({ state: 'held', nonce: due.nonce });
    expect(await activities.sweep(300_000)).toEqual({ freed: 0, pending: 0 });
    expect(await nonceOnChain(rpcUrl, stuck.nonceAccount)).toBe(value);
  });
});
