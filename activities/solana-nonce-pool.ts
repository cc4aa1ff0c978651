/**
 * Keeping the issuer's Solana nonce pool usable with nobody looking after it, run by the pool's workflow
 * (workflows/solana-nonce-pool.ts):
 * - `refillSolanaNoncePool`: the pool holds at least SOLANA_NONCE_POOL_SIZE accounts, and when fewer than
 *   SOLANA_NONCE_POOL_LOW_WATER are free it grows until twice that many are, never past SOLANA_NONCE_POOL_MAX. It
 *   takes the next derived accounts not registered yet (chains/solana-accounts.ts: account i of the issuer's key),
 *   creates on chain those that do not exist (the issuer pays their rent), waits until each is a nonce account of the
 *   issuer at `finalized`, reads its nonce and registers it. An account found on chain already (npm start's set-up,
 *   an earlier attempt that died) is registered, not created again; an issuer without the SOL to pay is said so in
 *   the logs and `issuer_solana_nonce_refills_total{outcome="unfunded"}`. One refill at a time (an advisory lock):
 *   another finds it under way and leaves it.
 * - `sweepStuckSolanaNonces`: an account held or being advanced for an attestation expired long ago — its workflow
 *   did not end its nonce (a worker died midway, the workflow was ended by hand) — is advanced and freed by the very
 *   activity the attestation's workflow calls (activities/solana-nonces.ts), so a sweep and a workflow meeting on one
 *   account do nothing twice.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { log } from '@temporalio/activity';
import {
  createSolanaRpc,
  getBase64Encoder,
  type Address,
  type Commitment,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getNonceDecoder, getNonceSize, NonceState, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { solanaIssuerSigner, solanaNonceSigner } from '../chains/solana-accounts';
import { nonceAccountCreation, rpcNonceLedger, sendInstructions } from '../chains/solana-ledger';
import type { Database } from '../db/pool';
import { addNonceAccounts, countNonceAccounts, listNonceAccountAddresses, listStuckNonceAccounts, type NonceAccountState } from '../db/queries/solana-nonces';
import { solanaNonceAccountsAdded, solanaNonceAccountsSwept, solanaNonceRefills } from '../metrics/metrics';
import { createSolanaNonceActivities, NonceNotAdvancedError } from './solana-nonces';

/** The pool's bounds (README, configuration). */
export interface SolanaNoncePoolSettings {
  /** SOLANA_NONCE_POOL_SIZE: accounts the pool holds at least (derived indexes 0…size-1 at first). */
  size: number;
  /** SOLANA_NONCE_POOL_LOW_WATER: with fewer free accounts the pool grows until twice as many are free. */
  lowWater: number;
  /** SOLANA_NONCE_POOL_MAX: accounts the pool never grows past. */
  max: number;
}

export interface SolanaNoncePoolDependencies {
  db: Database;
  /** The ledger's JSON-RPC endpoint (the local ledger, or a cluster). */
  rpcUrl: string;
  /** The issuer's 64-byte Solana key: nonce authority, rent payer, and the seed the accounts derive from. */
  issuerSecretKey: Uint8Array;
  pool: SolanaNoncePoolSettings;
  /** How long a refill waits for the accounts it made to be final before giving up (the next refill goes on). */
  finalityTimeoutMs?: number;
}

export type NoncePoolCounts = Record<NonceAccountState, number>;

/** What a refill did. */
export type NoncePoolRefill =
  /** Enough accounts, and enough of them free. */
  | { outcome: 'enough'; counts: NoncePoolCounts }
  /** Another refill holds the pool's lock: it is under way, nothing done here. */
  | { outcome: 'busy' }
  /** Accounts registered: `created` made by this refill, `found` on chain already. */
  | { outcome: 'added'; created: number; found: number; counts: NoncePoolCounts }
  /** Short, but the pool holds SOLANA_NONCE_POOL_MAX accounts (or every derived index left is another's account). */
  | { outcome: 'at_maximum'; counts: NoncePoolCounts }
  /** Short, and the issuer's SOL does not pay the rent of the accounts to create (those found were registered). */
  | { outcome: 'unfunded'; found: number; balance: string; needed: string; counts: NoncePoolCounts };

export interface NoncePoolSweep {
  /** Accounts freed (advanced by the sweep, or found moved on chain). */
  freed: number;
  /** Accounts whose advance is not visible at `finalized` yet: the next sweep frees them. */
  pending: number;
}

/** The pool's advisory lock: one refill at a time, whatever the number of workers. */
const REFILL_LOCK = 'solana-nonce-pool:refill';
/** Accounts created per transaction (each signs: four keep the transaction under 1232 bytes). */
const ACCOUNTS_PER_TRANSACTION = 4;
/** A signature's fee, lamports (a cluster's base fee). */
const FEE_PER_SIGNATURE = 5_000n;
/** Accounts a sweep ends at most (the next sweep goes on). */
const SWEEP_BATCH = 50;
const FINALITY_POLL_MS = 250;

/** How many accounts the pool lacks: to reach `size`, and to bring the free ones back to twice the low-water mark. */
export function accountsWanted(counts: NoncePoolCounts, pool: SolanaNoncePoolSettings): { wanted: number; allowed: number } {
  const total = counts.free + counts.held + counts.advancing;
  const wanted = Math.max(pool.size - total, counts.free < pool.lowWater ? 2 * pool.lowWater - counts.free : 0, 0);
  return { wanted, allowed: Math.min(wanted, Math.max(0, pool.max - total)) };
}

export function createSolanaNoncePoolActivities(deps: SolanaNoncePoolDependencies) {
  const { db, pool } = deps;
  const rpc = createSolanaRpc(deps.rpcUrl);
  const finalityTimeoutMs = deps.finalityTimeoutMs ?? 120_000;
  const issuer = solanaIssuerSigner(deps.issuerSecretKey);
  const derived = new Map<number, Promise<KeyPairSigner>>();
  const nonceSigner = (index: number): Promise<KeyPairSigner> => {
    if (!derived.has(index)) derived.set(index, solanaNonceSigner(deps.issuerSecretKey, index));
    return derived.get(index)!;
  };

  /** Each account's nonce at `commitment` when it is an initialised nonce account of the issuer; null when absent; 'foreign' otherwise. */
  async function readAccounts(addresses: Address[], commitment: Commitment): Promise<(string | null | 'foreign')[]> {
    const authority = (await issuer).address;
    const answers: (string | null | 'foreign')[] = [];
    for (let start = 0; start < addresses.length; start += 100) {
      const { value } = await rpc.getMultipleAccounts(addresses.slice(start, start + 100), { encoding: 'base64', commitment }).send();
      for (const account of value) {
        if (!account) {
          answers.push(null);
          continue;
        }
        const data = Uint8Array.from(getBase64Encoder().encode(account.data[0]));
        if (account.owner !== SYSTEM_PROGRAM_ADDRESS || data.length !== getNonceSize()) {
          answers.push('foreign');
          continue;
        }
        const nonce = getNonceDecoder().decode(data);
        answers.push(nonce.state === NonceState.Initialized && nonce.authority === authority ? nonce.blockhash : 'foreign');
      }
    }
    return answers;
  }

  /** Sends the creation of `signers`' nonce accounts, a few per transaction; answers the transactions' signatures. */
  async function createAccounts(signers: KeyPairSigner[], rent: bigint): Promise<Signature[]> {
    const payer = await issuer;
    const signatures: Signature[] = [];
    for (let start = 0; start < signers.length; start += ACCOUNTS_PER_TRANSACTION) {
      const batch = signers.slice(start, start + ACCOUNTS_PER_TRANSACTION);
      signatures.push(await sendInstructions(rpc, payer, batch.flatMap((signer) => nonceAccountCreation(payer, signer, rent))));
    }
    return signatures;
  }

  /** Waits until every account is a nonce account of the issuer at `finalized`; answers their nonces. */
  async function finalNonces(addresses: Address[], sent: Signature[]): Promise<string[]> {
    const deadline = Date.now() + finalityTimeoutMs;
    for (;;) {
      const nonces = await readAccounts(addresses, 'finalized');
      if (nonces.every((nonce): nonce is string => typeof nonce === 'string' && nonce !== 'foreign')) return nonces;
      if (sent.length > 0) {
        const { value: statuses } = await rpc.getSignatureStatuses(sent).send();
        const failed = statuses.find((status) => status?.err);
        if (failed) throw new Error(`a transaction creating nonce accounts failed on chain: ${JSON.stringify(failed.err, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}`);
      }
      if (Date.now() > deadline) throw new Error(`the nonce accounts made or found are not final within ${finalityTimeoutMs} ms; the next refill registers them`);
      await new Promise((resolve) => setTimeout(resolve, FINALITY_POLL_MS));
    }
  }

  /** The refill under the pool's lock (see the module header). */
  async function refillLocked(): Promise<NoncePoolRefill> {
    const counts = await countNonceAccounts(db);
    const { wanted, allowed } = accountsWanted(counts, pool);
    if (wanted === 0) return { outcome: 'enough', counts };

    // The lowest derived indexes not registered yet, below the maximum: those on chain already (ours) are found,
    // those absent are made; an address taken by another's account is passed over.
    const registered = await listNonceAccountAddresses(db);
    const candidates: KeyPairSigner[] = [];
    for (let index = 0; index < pool.max && candidates.length < allowed; index += 1) {
      const signer = await nonceSigner(index);
      if (!registered.has(signer.address)) candidates.push(signer);
    }
    const onChain = await readAccounts(candidates.map((signer) => signer.address), 'processed');
    const found = candidates.filter((_, index) => typeof onChain[index] === 'string' && onChain[index] !== 'foreign');
    const missing = candidates.filter((_, index) => onChain[index] === null);
    const foreign = candidates.filter((_, index) => onChain[index] === 'foreign');
    if (foreign.length > 0) log.warn('Solana nonce pool: derived addresses hold accounts that are not the issuer’s nonce accounts; passed over', { addresses: foreign.map((signer) => signer.address) });
    if (found.length === 0 && missing.length === 0) {
      log.warn('Solana nonce pool short of accounts but at its maximum', { ...counts, wanted, max: pool.max });
      return { outcome: 'at_maximum', counts };
    }

    let toCreate = missing;
    let sent: Signature[] = [];
    let unfunded: { balance: bigint; needed: bigint } | undefined;
    if (missing.length > 0) {
      const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getNonceSize())).send();
      const transactions = BigInt(Math.ceil(missing.length / ACCOUNTS_PER_TRANSACTION));
      const needed = rent * BigInt(missing.length) + FEE_PER_SIGNATURE * (transactions + BigInt(missing.length));
      const { value: balance } = await rpc.getBalance((await issuer).address, { commitment: 'confirmed' }).send();
      if (balance < needed) {
        unfunded = { balance, needed };
        toCreate = [];
        log.error(`Solana nonce pool: the issuer ${(await issuer).address} holds ${balance} lamports, ${needed} are needed to create ${missing.length} nonce accounts; fund it`, {
          ...counts,
          wanted,
        });
      }
      if (toCreate.length > 0) sent = await createAccounts(toCreate, rent);
    }
    const registering = [...found, ...toCreate];
    if (registering.length > 0) {
      const addresses = registering.map((signer) => signer.address);
      const nonces = await finalNonces(addresses, sent);
      const authority = (await issuer).address;
      await addNonceAccounts(db, addresses.map((address, index) => ({ address, authority, nonce: nonces[index]! })));
    }
    const after = await countNonceAccounts(db);
    if (unfunded) return { outcome: 'unfunded', found: found.length, balance: unfunded.balance.toString(), needed: unfunded.needed.toString(), counts: after };
    return { outcome: 'added', created: toCreate.length, found: found.length, counts: after };
  }

  return {
    /** Grows the pool when it is short (see the module header); one refill at a time. */
    async refillSolanaNoncePool(): Promise<NoncePoolRefill> {
      const lock = await db.connect();
      try {
        const { rows } = await lock.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [REFILL_LOCK]);
        if (!rows[0]!.locked) return { outcome: 'busy' };
        const refill = await refillLocked();
        if (refill.outcome === 'added') {
          solanaNonceRefills.inc({ outcome: 'added' });
          solanaNonceAccountsAdded.inc({ how: 'created' }, refill.created);
          solanaNonceAccountsAdded.inc({ how: 'found' }, refill.found);
        } else if (refill.outcome === 'unfunded' || refill.outcome === 'at_maximum') {
          solanaNonceRefills.inc({ outcome: refill.outcome });
          if (refill.outcome === 'unfunded') solanaNonceAccountsAdded.inc({ how: 'found' }, refill.found);
        }
        return refill;
      } catch (error) {
        solanaNonceRefills.inc({ outcome: 'failed' });
        throw error;
      } finally {
        await lock.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
        lock.release();
      }
    },

    /**
     * Advances and frees the accounts still held or advancing for attestations that expired more than
     * `pastExpiryMs` ago, by the attestation workflow's own activity (advanceAttestationNonce).
     */
    async sweepStuckSolanaNonces({ pastExpiryMs }: { pastExpiryMs: number }): Promise<NoncePoolSweep> {
      const stuck = await listStuckNonceAccounts(db, { expiredBefore: Date.now() - pastExpiryMs, limit: SWEEP_BATCH });
      if (stuck.length === 0) return { freed: 0, pending: 0 };
      const signer = await issuer;
      const { advanceAttestationNonce } = createSolanaNonceActivities({
        db,
        ledger: rpcNonceLedger(deps.rpcUrl),
        issuer: { address: signer.address, sign: (message) => ed25519.sign(message, deps.issuerSecretKey.subarray(0, 32)) },
      });
      const sweep: NoncePoolSweep = { freed: 0, pending: 0 };
      for (const account of stuck) {
        try {
          const outcome = await advanceAttestationNonce({ attestationId: account.attestationId! });
          if (outcome.held) sweep.freed += 1;
        } catch (error) {
          if (!(error instanceof NonceNotAdvancedError)) throw error;
          sweep.pending += 1;
        }
      }
      if (sweep.freed > 0) {
        solanaNonceAccountsSwept.inc(sweep.freed);
        log.warn('Solana nonce pool: freed accounts their expired attestations still held', { freed: sweep.freed, pending: sweep.pending });
      }
      return sweep;
    },
  };
}

export type SolanaNoncePoolActivities = ReturnType<typeof createSolanaNoncePoolActivities>;
