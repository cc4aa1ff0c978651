/**
 * The on-chain step on Solana: the attestation's `additionalData` is the whole trade as one transaction the issuer
 * has signed, fee payer the user. Completing it is checking that it is what the user expects (built for this signer,
 * naming this attestation in its memo), adding the user's signature and sending it. `@solana/kit` (an optional peer)
 * is loaded when first used.
 */
import type {
  Base64EncodedWireTransaction,
  Signature,
  SolanaRpcApi,
  Rpc,
  Transaction,
  TransactionPartialSigner,
} from '@solana/kit';
import { SPL_MEMO_PROGRAM_ADDRESS, base64ToBytes, solanaAttestationMemo, type AttestationFields } from './attestation.ts';

export interface CompleteSolanaAttestationParameters {
  attestation: AttestationFields;
  /** The user's wallet: the transaction's fee payer (a `KeyPairSigner`, or a wallet adapter's partial signer). */
  signer: TransactionPartialSigner;
}

/** Checks the attestation's transaction against the signer and the attestation, and signs it: the base64 wire form. */
export async function completeSolanaAttestation({ attestation, signer }: CompleteSolanaAttestationParameters): Promise<Base64EncodedWireTransaction> {
  const { getBase64EncodedWireTransaction, getCompiledTransactionMessageDecoder, getTransactionDecoder } = await import('@solana/kit');
  const transaction: Transaction = getTransactionDecoder().decode(base64ToBytes(attestation.additionalData));
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  if (message.version !== 'legacy') throw new Error(`the attestation's transaction message is version ${message.version}, not the legacy one the issuer builds`);
  const feePayer = message.staticAccounts[0];
  if (feePayer !== signer.address) throw new Error(`the attestation's transaction is built for ${String(feePayer)}, not for the signer ${signer.address}`);
  const memo = new TextEncoder().encode(solanaAttestationMemo(attestation.attestationId));
  const namesIt = message.instructions.some(
    (instruction) =>
      message.staticAccounts[instruction.programAddressIndex] === SPL_MEMO_PROGRAM_ADDRESS &&
      instruction.data !== undefined &&
      instruction.data.length === memo.length &&
      instruction.data.every((byte, index) => byte === memo[index]),
  );
  if (!namesIt) throw new Error(`the transaction's memo does not name attestation ${attestation.attestationId}`);
  const [signatures] = await signer.signTransactions([transaction as Parameters<typeof signer.signTransactions>[0][number]]);
  const signed = { ...transaction, signatures: { ...transaction.signatures, ...signatures } } as Parameters<typeof getBase64EncodedWireTransaction>[0];
  return getBase64EncodedWireTransaction(signed);
}

export interface SendSolanaAttestationParameters extends CompleteSolanaAttestationParameters {
  /** `createSolanaRpc(url)`. */
  rpc: Rpc<Pick<SolanaRpcApi, 'sendTransaction'>>;
}

/** Completes the attestation's transaction with the signer and sends it; the transaction's signature. */
export async function sendSolanaAttestation(p: SendSolanaAttestationParameters): Promise<Signature> {
  const wire = await completeSolanaAttestation(p);
  return p.rpc.sendTransaction(wire, { encoding: 'base64' }).send();
}
