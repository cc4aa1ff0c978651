/**
 * The end of a Solana attestation's nonce: at expiry the workflow advances it, after which the attestation's
 * transaction can never land, and only then does the attestation count as expired; after an execution the user's
 * transaction has advanced it already. Either way the account returns to the pool with the value read from the
 * chain. Each activity reads where it got to first, so a retry, a second call or a nonce advanced meanwhile by the
 * user's transaction changes nothing twice.
 */
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type SignatureBytes,
} from '@solana/kit';
import { getAdvanceNonceAccountInstruction } from '@solana-program/system';
import type { SolanaNonceLedger } from '../chains/solana-ledger';
import type { Queryable } from '../db/pool';
import { findHeldNonceAccount, markNonceAdvancing, releaseNonceAccount } from '../db/queries/solana-nonces';
import type { SignSolanaMessage } from '../signing/solana-transaction';

export interface SolanaNonceDependencies {
  db: Queryable;
  ledger: SolanaNonceLedger;
  /** The issuer's key: the pool's nonce authority, which also pays for the advance. */
  issuer: { address: Address; sign: SignSolanaMessage };
}

/** What became of an attestation's nonce account. */
export type NonceOutcome =
  /** The attestation holds no account (none was held, or it was freed by an earlier call). */
  | { held: false }
  /** The account is free again; `nonce` is its new value on chain, `advanced` whether this call sent the advance. */
  | { held: true; nonceAccount: string; nonce: string; advanced: boolean };

/** The nonce on chain has not moved yet: retried by the activity's policy until it has. */
export class NonceNotAdvancedError extends Error {
  override readonly name = 'NonceNotAdvancedError';
}

export function createSolanaNonceActivities({ db, ledger, issuer }: SolanaNonceDependencies) {
  /** The account's value on chain; throws when the account is gone (an operator's matter: nothing can free it). */
  async function valueOnChain(nonceAccount: string): Promise<string> {
    const value = await ledger.readNonce(nonceAccount as Address);
    if (value === undefined) throw new Error(`the nonce account ${nonceAccount} is not an initialised nonce account on the ledger`);
    return value;
  }

  async function sendAdvance(nonceAccount: string): Promise<void> {
    const { blockhash, lastValidBlockHeight } = await ledger.latestBlockhash();
    const message = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (draft) => setTransactionMessageFeePayer(issuer.address, draft),
      (draft) => setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight }, draft),
      (draft) =>
        appendTransactionMessageInstructions(
          [getAdvanceNonceAccountInstruction({ nonceAccount: nonceAccount as Address, nonceAuthority: createNoopSigner(issuer.address) })],
          draft,
        ),
    );
    const unsigned = compileTransaction(message);
    const signature = issuer.sign(Uint8Array.from(unsigned.messageBytes)) as SignatureBytes;
    await ledger.sendTransaction(getBase64EncodedWireTransaction({ ...unsigned, signatures: { [issuer.address]: signature } }));
  }

  /** Frees the account once the chain shows a value past the held one; false while it does not yet. */
  async function releaseIfMoved(attestationId: string, nonceAccount: string, heldNonce: string): Promise<string | undefined> {
    const value = await valueOnChain(nonceAccount);
    if (value === heldNonce) return undefined;
    await releaseNonceAccount(db, { attestationId, address: nonceAccount, nonce: value });
    return value;
  }

  return {
    /**
     * At the attestation's expiry: advances its nonce on chain unless it has moved already (the user's transaction
     * landed, or an earlier attempt's advance did — at `processed` already: then it is waited for), then frees the
     * account with the new value read at the ledger's commitment. Throws NonceNotAdvancedError while that value is
     * the held one, so the retry reads again rather than advancing twice; the attestation may count as expired only
     * once this has returned.
     */
    async advanceAttestationNonce({ attestationId }: { attestationId: string }): Promise<NonceOutcome> {
      const account = await markNonceAdvancing(db, attestationId);
      if (!account) return { held: false };
      const moved = await releaseIfMoved(attestationId, account.address, account.nonce);
      if (moved !== undefined) return { held: true, nonceAccount: account.address, nonce: moved, advanced: false };
      // Not moved where the ledger is final. A move under way (an earlier attempt's advance, the user's transaction)
      // shows at `processed`: it is waited for, not sent again — a second advance would move the nonce past the value
      // the account is freed with, and the next attestation on it could never land.
      const underWay = (await ledger.readNonce(account.address as Address, 'processed')) !== account.nonce;
      if (!underWay) await sendAdvance(account.address);
      const advanced = await releaseIfMoved(attestationId, account.address, account.nonce);
      if (advanced === undefined) throw new NonceNotAdvancedError(`the advance of ${account.address} for attestation ${attestationId} is not visible on the ledger yet`);
      return { held: true, nonceAccount: account.address, nonce: advanced, advanced: !underWay };
    },

    /**
     * After the attestation executed: its transaction advanced the nonce; frees the account with the value read
     * from the chain. Throws NonceNotAdvancedError while the ledger (at the commitment it reads) still shows the
     * held value.
     */
    async releaseExecutedAttestationNonce({ attestationId }: { attestationId: string }): Promise<NonceOutcome> {
      const account = await findHeldNonceAccount(db, attestationId);
      if (!account) return { held: false };
      const moved = await releaseIfMoved(attestationId, account.address, account.nonce);
      if (moved === undefined) throw new NonceNotAdvancedError(`the nonce of ${account.address} has not moved since attestation ${attestationId} took it`);
      return { held: true, nonceAccount: account.address, nonce: moved, advanced: false };
    },
  };
}

export type SolanaNonceActivities = ReturnType<typeof createSolanaNonceActivities>;
