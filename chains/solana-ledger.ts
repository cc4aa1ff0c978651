/**
 * What the product asks of a Solana ledger for its nonce pool, and its one implementation over JSON-RPC
 * (`@solana/kit`): the nonce value an account holds at a commitment, a recent blockhash, and sending a signed
 * transaction. The local development ledger and a real cluster answer the same methods.
 */
import { createSolanaRpc, getBase64Encoder, type Address, type Base64EncodedWireTransaction, type Blockhash, type Commitment } from '@solana/kit';
import { getNonceDecoder, getNonceSize, NonceState } from '@solana-program/system';

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
