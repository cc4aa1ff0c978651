/**
 * The issuer's pool of Solana durable nonce accounts on real PostgreSQL (migration 018, db/queries/solana-nonces.ts,
 * attestations/solana-nonce-pool.ts), and the activities that end an attestation's nonce (activities/solana-nonces.ts)
 * on litesvm in process: what expires an attestation on chain, and what gives its account back.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { createNoopSigner, getTransactionDecoder, lamports, type Address } from '@solana/kit';
import { getAdvanceNonceAccountInstruction } from '@solana-program/system';
import type { LiteSVM } from 'litesvm';
import { createSolanaNonceActivities, NonceNotAdvancedError } from '../../activities/solana-nonces';
import { AttestationRefused } from '../../attestations/errors';
import { holdSolanaNonce, retryAfterSeconds } from '../../attestations/solana-nonce-pool';
import { createPool, inTransaction } from '../../db/pool';
import { addNonceAccounts, countNonceAccounts, findHeldNonceAccount, releaseNonceAccount } from '../../db/queries/solana-nonces';
import { base64ToBytes, signSolanaAttestationTransaction } from '../../signing';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import {
  createMint,
  createNonceAccount,
  createTokenAccount,
  mintTo,
  newLedger,
  nonceValue,
  send,
  sendInstructions,
  signedBy,
  svmNonceLedger,
  testKey,
  tokenBalance,
  associatedTokenAccount,
} from '../support/solana-svm';

let database: TestDb;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
});
afterAll(() => database.drop());

beforeEach(() => database.db.query('TRUNCATE solana_nonce_accounts'));

const issuer = testKey(1);
const user = testKey(2);
const NOW = 1_790_000_000_000;

/** A base58 string shaped like an address, distinct per number (the pool's table checks only the form). */
function fakeAddress(n: number): string {
  return testKey(100 + n).address;
}

async function addFakeAccounts(count: number): Promise<string[]> {
  const addresses = Array.from({ length: count }, (_, i) => fakeAddress(i));
  await addNonceAccounts(database.db, addresses.map((address, i) => ({ address, authority: issuer.address, nonce: fakeAddress(50 + i) })));
  return addresses;
}

/** Resolves once `count` callers have arrived: every transaction holds its lock until all have tried. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    arrived += 1;
    if (arrived === count) open();
    await opened;
  };
}

describe('taking a nonce account', () => {
  test('twenty attestations at once on a pool of five: five hold distinct accounts, fifteen are refused with Retry-After', async () => {
    const pool = await addFakeAccounts(5);
    const allTried = barrier(20);
    // One connection per attestation: each keeps its transaction open until all twenty have tried.
    const connections = createPool(database.url, 20);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        inTransaction(connections, async (client) => {
          try {
            const held = await holdSolanaNonce(client, { attestationId: String(1000 + i), expiresAt: NOW + 30_000, now: NOW });
            await allTried();
            return held.nonceAccount;
          } catch (error) {
            await allTried();
            return error;
          }
        }),
      ),
    ).finally(() => connections.end());
    const held = outcomes.filter((outcome): outcome is string => typeof outcome === 'string');
    const refused = outcomes.filter((outcome) => outcome instanceof AttestationRefused);
    expect(held.sort()).toEqual([...pool].sort());
    expect(refused).toHaveLength(15);
    for (const refusal of refused) {
      expect(refusal).toMatchObject({ code: 'NONCE_POOL_EXHAUSTED', headers: { 'Retry-After': expect.stringMatching(/^\d+$/) } });
    }
    expect(await countNonceAccounts(database.db)).toEqual({ free: 0, held: 5, advancing: 0 });
  });

  test('an attestation that is not stored in the end holds no account', async () => {
    await addFakeAccounts(1);
    await expect(
      inTransaction(database.db, async (client) => {
        await holdSolanaNonce(client, { attestationId: '7', expiresAt: NOW + 30_000, now: NOW });
        throw new Error('refused by the limits');
      }),
    ).rejects.toThrow('refused by the limits');
    expect(await countNonceAccounts(database.db)).toEqual({ free: 1, held: 0, advancing: 0 });
    expect(await findHeldNonceAccount(database.db, '7')).toBeUndefined();
  });

  test('the refusal’s Retry-After is the time until the soonest held attestation expires, within a second and a minute', async () => {
    await addFakeAccounts(2);
    await holdSolanaNonce(database.db, { attestationId: '1', expiresAt: NOW + 45_000, now: NOW });
    await holdSolanaNonce(database.db, { attestationId: '2', expiresAt: NOW + 12_500, now: NOW });
    await expect(holdSolanaNonce(database.db, { attestationId: '3', expiresAt: NOW + 30_000, now: NOW })).rejects.toMatchObject({
      code: 'NONCE_POOL_EXHAUSTED',
      headers: { 'Retry-After': '13' },
    });
    expect(retryAfterSeconds(undefined, NOW)).toBe(60);
    expect(retryAfterSeconds(NOW - 5_000, NOW)).toBe(1);
    expect(retryAfterSeconds(NOW + 600_000, NOW)).toBe(60);
  });

  test('an account is free again only with a nonce value other than the one it was held with', async () => {
    const [address] = await addFakeAccounts(1);
    const held = await holdSolanaNonce(database.db, { attestationId: '9', expiresAt: NOW, now: NOW });
    expect(await releaseNonceAccount(database.db, { attestationId: '9', address: address!, nonce: held.nonce })).toBe(false);
    expect(await releaseNonceAccount(database.db, { attestationId: '8', address: address!, nonce: fakeAddress(99) })).toBe(false);
    expect(await releaseNonceAccount(database.db, { attestationId: '9', address: address!, nonce: fakeAddress(99) })).toBe(true);
    expect(await holdSolanaNonce(database.db, { attestationId: '10', expiresAt: NOW, now: NOW })).toEqual({ nonceAccount: address, nonce: fakeAddress(99) });
  });
});

describe('ending an attestation’s nonce on the ledger', () => {
  const STABLECOIN_DECIMALS = 6;
  const STOCK_DECIMALS = 9;

  interface Setup {
    svm: LiteSVM;
    stablecoinMint: Address;
    stockMint: Address;
    treasury: Address;
    nonceAccounts: Address[];
  }

  /** A ledger with the issuer's mints, treasury and two nonce accounts, registered in the pool; a user with 1,000 USD. */
  async function setup(): Promise<Setup> {
    const svm = newLedger();
    for (const key of [issuer, user]) svm.airdrop(key.address, lamports(10_000_000_000n));
    const stablecoinMint = createMint(svm, issuer, testKey(10), issuer.address, STABLECOIN_DECIMALS);
    const stockMint = createMint(svm, issuer, testKey(11), issuer.address, STOCK_DECIMALS);
    const treasury = await createTokenAccount(svm, issuer, issuer.address, stablecoinMint);
    mintTo(svm, issuer, stablecoinMint, await createTokenAccount(svm, user, user.address, stablecoinMint), 1_000_000_000n, STABLECOIN_DECIMALS);
    const nonceAccounts = [createNonceAccount(svm, issuer, testKey(12), issuer.address), createNonceAccount(svm, issuer, testKey(13), issuer.address)];
    await addNonceAccounts(database.db, nonceAccounts.map((address) => ({ address, authority: issuer.address, nonce: nonceValue(svm, address) })));
    return { svm, stablecoinMint, stockMint, treasury, nonceAccounts };
  }

  /** An attestation (a buy of 2 tokens at 100) that takes a nonce of the pool, signed by the issuer. */
  async function attestation(at: Setup, attestationId: bigint) {
    const held = await inTransaction(database.db, (client) => holdSolanaNonce(client, { attestationId: attestationId.toString(), expiresAt: NOW, now: NOW }));
    const signed = await signSolanaAttestationTransaction(
      {
        issuer: issuer.address,
        stablecoinMint: at.stablecoinMint,
        stablecoinDecimals: STABLECOIN_DECIMALS,
        treasury: at.treasury,
        attestationId,
        side: 0,
        user: user.address,
        stockMint: at.stockMint,
        stockDecimals: STOCK_DECIMALS,
        price: 100n * 10n ** 18n,
        quantity: 2n * 10n ** 18n,
        nonceAccount: held.nonceAccount as Address,
        nonce: held.nonce,
      },
      (message) => ed25519.sign(message, issuer.seed),
    );
    return { held, transaction: signedBy(getTransactionDecoder().decode(base64ToBytes(signed.additionalData)), user) };
  }

  function activities(svm: LiteSVM) {
    const ledger = svmNonceLedger(svm);
    return { ledger, ...createSolanaNonceActivities({ db: database.db, ledger, issuer: { address: issuer.address, sign: (message) => ed25519.sign(message, issuer.seed) } }) };
  }

  test('at expiry the nonce is advanced: the attestation can never land, and its account is free with the new value', async () => {
    const at = await setup();
    const { held, transaction } = await attestation(at, 1n);
    const { advanceAttestationNonce } = activities(at.svm);

    const outcome = await advanceAttestationNonce({ attestationId: '1' });
    expect(outcome).toEqual({ held: true, nonceAccount: held.nonceAccount, nonce: nonceValue(at.svm, held.nonceAccount as Address), advanced: true });
    expect(outcome.held && outcome.nonce).not.toBe(held.nonce);

    expect(send(at.svm, transaction)).not.toBeNull();
    expect(tokenBalance(at.svm, await associatedTokenAccount(user.address, at.stockMint))).toBe(0n);
    expect(await findHeldNonceAccount(database.db, '1')).toBeUndefined();
    expect(await countNonceAccounts(database.db)).toEqual({ free: 2, held: 0, advancing: 0 });
  });

  test('advancing again, or after the account was freed, sends nothing and changes nothing', async () => {
    const at = await setup();
    const { held } = await attestation(at, 2n);
    const { advanceAttestationNonce, ledger } = activities(at.svm);
    await advanceAttestationNonce({ attestationId: '2' });
    const value = nonceValue(at.svm, held.nonceAccount as Address);

    expect(await advanceAttestationNonce({ attestationId: '2' })).toEqual({ held: false });
    expect(ledger.sent).toBe(1);
    expect(nonceValue(at.svm, held.nonceAccount as Address)).toBe(value);
  });

  test('a nonce already moved on chain (the user’s transaction landed, or an earlier attempt’s advance) is not advanced again', async () => {
    const at = await setup();
    const { held, transaction } = await attestation(at, 3n);
    const { advanceAttestationNonce, ledger } = activities(at.svm);
    expect(send(at.svm, transaction)).toBeNull();
    const afterTrade = nonceValue(at.svm, held.nonceAccount as Address);

    expect(await advanceAttestationNonce({ attestationId: '3' })).toEqual({ held: true, nonceAccount: held.nonceAccount, nonce: afterTrade, advanced: false });
    expect(ledger.sent).toBe(0);
    expect(nonceValue(at.svm, held.nonceAccount as Address)).toBe(afterTrade);
  });

  test('an advance sent by an attempt that died before recording it is found by the retry', async () => {
    const at = await setup();
    const { held } = await attestation(at, 4n);
    at.svm.expireBlockhash();
    // The first attempt's advance landed; the attempt died before it freed the account.
    sendInstructions(at.svm, issuer, [getAdvanceNonceAccountInstruction({ nonceAccount: held.nonceAccount as Address, nonceAuthority: createNoopSigner(issuer.address) })]);
    const { advanceAttestationNonce, ledger } = activities(at.svm);

    const outcome = await advanceAttestationNonce({ attestationId: '4' });
    expect(outcome).toMatchObject({ held: true, advanced: false, nonce: nonceValue(at.svm, held.nonceAccount as Address) });
    expect(ledger.sent).toBe(0);
  });

  test('after an execution the account is freed with the value the user’s transaction left, and the next attestation on it lands', async () => {
    const at = await setup();
    const first = await attestation(at, 5n);
    const { releaseExecutedAttestationNonce } = activities(at.svm);
    await expect(releaseExecutedAttestationNonce({ attestationId: '5' })).rejects.toThrow(NonceNotAdvancedError);
    expect(await findHeldNonceAccount(database.db, '5')).toMatchObject({ state: 'held' });

    expect(send(at.svm, first.transaction)).toBeNull();
    at.svm.expireBlockhash();
    expect(await releaseExecutedAttestationNonce({ attestationId: '5' })).toMatchObject({ held: true, nonceAccount: first.held.nonceAccount, advanced: false });

    // Both accounts are free; the least recently used one (the other) is taken first, then this one with its new value.
    const second = await attestation(at, 6n);
    const third = await attestation(at, 7n);
    expect(third.held).toEqual({ nonceAccount: first.held.nonceAccount, nonce: nonceValue(at.svm, first.held.nonceAccount as Address) });
    expect(send(at.svm, second.transaction)).toBeNull();
    at.svm.expireBlockhash();
    expect(send(at.svm, third.transaction)).toBeNull();
    expect(tokenBalance(at.svm, await associatedTokenAccount(user.address, at.stockMint))).toBe(6_000_000_000n);
  });
});
