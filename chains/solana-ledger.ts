/**
 * What the product asks of a Solana ledger for its nonce pool, and its one implementation over JSON-RPC
 * (`@solana/kit`): the nonce value an account holds at a commitment, a recent blockhash, and sending a signed
 * transaction; and what the issuer's set-up and the pool's refill both send: instructions in one transaction the payer
 * signs, and the creation of a nonce account. The local development ledger and a real cluster answer the same methods.
 */
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  getBase64Encoder,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Commitment,
  type Instruction,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
  type TransactionSigner,
} from '@solana/kit';
import { getCreateAccountInstruction, getInitializeNonceAccountInstruction, getNonceDecoder, getNonceSize, NonceState, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';

export interface SolanaNonceLedger {
  /**
   * The nonce value `account` holds, undefined when there is no initialised nonce account there: at the ledger's
   * commitment, or at `commitment` when asked (`processed`: what is under way).
   */
  readNonce(account: Address, commitment?: Commitment): Promise<string | undefined>;
  latestBlockhash(): Promise<{ blockhash: Blockhash; lastValidBlockHeight: bigint }>;
  /** Sends a signed wire transaction; throws when the ledger refuses it before it is processed. */
  sendTransaction(transaction: Base64EncodedWireTransaction): Promise<void>;
}

/** Decodes a nonce account's data; undefined when it is not an initialised nonce account. */
export function decodeNonceValue(data: Uint8Array): string | undefined {
  if (data.length !== getNonceSize()) return undefined;
  const nonce = getNonceDecoder().decode(data);
  return nonce.state === NonceState.Uninitialized ? undefined : nonce.blockhash;
}

/**
 * The ledger behind a JSON-RPC endpoint. Nonces are read at `commitment` (finalized by default: a value freed to
 * the pool must be the one the chain keeps).
 */
export function rpcNonceLedger(rpcUrl: string, commitment: Commitment = 'finalized'): SolanaNonceLedger {
  const rpc = createSolanaRpc(rpcUrl);
  return {
    async readNonce(account, asked) {
      const { value } = await rpc.getAccountInfo(account, { encoding: 'base64', commitment: asked ?? commitment }).send();
      return value ? decodeNonceValue(Uint8Array.from(getBase64Encoder().encode(value.data[0]))) : undefined;
    },
    async latestBlockhash() {
      const { value } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
      return value;
    },
    async sendTransaction(transaction) {
      await rpc.sendTransaction(transaction, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
    },
  };
}

/**
 * Sends `instructions` as one transaction paid by `payer`, over the latest confirmed blockhash, signed by the payer and
 * by every signer the instructions name (a new account's key, say); answers its signature, not waiting for it.
 */
export async function sendInstructions(rpc: Rpc<SolanaRpcApi>, payer: TransactionSigner, instructions: Instruction[]): Promise<Signature> {
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(payer, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
}

/** The instructions that make `account` a durable nonce account whose authority is `payer`, its rent paid by `payer`. */
export function nonceAccountCreation(payer: TransactionSigner, account: TransactionSigner, rent: bigint): Instruction[] {
  return [
    getCreateAccountInstruction({ payer, newAccount: account, lamports: rent, space: getNonceSize(), programAddress: SYSTEM_PROGRAM_ADDRESS }),
    getInitializeNonceAccountInstruction({ nonceAccount: account.address, nonceAuthority: payer.address }),
  ];
}
