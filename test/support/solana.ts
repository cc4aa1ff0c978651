/** Talking to the local Solana ledger in tests: raw JSON-RPC calls, and transactions built and signed with @solana/kit. */
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Instruction,
  type Nonce,
  type TransactionSigner,
} from '@solana/kit';

export interface RpcAnswer<T> {
  result?: T;
  error?: { code: number; message: string; data?: { err?: unknown } };
}

/** One JSON-RPC 2.0 call, answered as the endpoint answered it (result or error). */
export async function rpcCall<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<RpcAnswer<T>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await response.json()) as RpcAnswer<T>;
}

/** The result of a call that must succeed. */
export async function rpcResult<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const answer = await rpcCall<T>(url, method, params);
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result as T;
}

export type Lifetime = { blockhash: string } | { nonce: string; nonceAccount: Address; nonceAuthority: TransactionSigner };

/** A signed wire transaction (base64) of `instructions`, paid by `payer`, with a blockhash (default: the ledger's latest `processed`) or a durable nonce. */
export async function signedTransaction(url: string, payer: TransactionSigner, instructions: Instruction[], lifetime?: Lifetime): Promise<string> {
  const chosen = lifetime ?? { blockhash: (await rpcResult<{ value: { blockhash: string } }>(url, 'getLatestBlockhash', [{ commitment: 'processed' }])).value.blockhash };
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(payer, draft),
    (draft) =>
      'nonce' in chosen
        ? setTransactionMessageLifetimeUsingDurableNonce({ nonce: chosen.nonce as Nonce, nonceAccountAddress: chosen.nonceAccount, nonceAuthorityAddress: chosen.nonceAuthority.address }, draft)
        : setTransactionMessageLifetimeUsingBlockhash({ blockhash: chosen.blockhash as Blockhash, lastValidBlockHeight: 0n }, draft),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  return getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message));
}

/** Sends a wire transaction (base64) with preflight; throws the JSON-RPC error if refused. */
export async function send(url: string, wire: string, options: { skipPreflight?: boolean } = {}): Promise<string> {
  return rpcResult<string>(url, 'sendTransaction', [wire, { encoding: 'base64', ...options }]);
}
