/**
 * Sends an issuer transaction at most once per step. The transaction is signed with an explicit nonce and stored
 * under the step's key (workflow id and step) before it is broadcast; a retry of the step finds it, re-sends the
 * same bytes and waits for the same hash. Nonces are allocated under a PostgreSQL advisory lock per sender and
 * chain, so concurrent steps never sign two transactions with one nonce.
 *
 * Not handled: replacing a stored transaction that the network dropped (fee spikes on a real chain). On the
 * local chains every transaction is mined at once; on a real chain an operator replaces it by hand.
 */
import type { Database } from '../db/pool';
import {
  findChainTransaction,
  insertChainTransaction,
  nextStoredNonce,
  recordChainTransactionOutcome,
  type ChainTransactionRecord,
} from '../db/queries/chain-transactions';
import {
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  keccak256,
  type Abi,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
} from 'viem';
import type { EvmNetwork } from './networks';

export interface SendOnceParameters {
  /** The step's idempotency key, e.g. `wallet-registration-ethereum-1-0xabc…-v2:register`. */
  key: string;
  network: EvmNetwork;
  client: PublicClient;
  account: LocalAccount;
  /** The contract call: its ABI (custom errors included, so a revert is named), function and arguments. */
  to: Address;
  abi: Abi;
  functionName: string;
  args: readonly unknown[];
  /** Confirmations to wait for after the block that includes it (0: the including block is enough). */
  confirmations?: number;
}

export interface SentTransaction {
  txHash: Hex;
  blockNumber: bigint;
  status: 'success' | 'reverted';
}

/** The call would revert: nothing was signed or stored. `reason` is the contract's custom error name, if decoded. */
export class TransactionWouldRevertError extends Error {
  override readonly name = 'TransactionWouldRevertError';
  constructor(
    message: string,
    readonly reason: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The custom error name of a revert, when viem decoded one. */
export function revertReason(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
  return reverted instanceof ContractFunctionRevertedError ? (reverted.data?.errorName ?? reverted.reason) : undefined;
}

async function signAndStore(database: Database, parameters: SendOnceParameters): Promise<ChainTransactionRecord> {
  const { key, network, client, account, to, abi, functionName, args } = parameters;
  // Simulate first: a call that reverts is refused, with its custom error named, before anything is signed.
  try {
    await client.simulateContract({ account, address: to, abi, functionName, args });
  } catch (error) {
    const reason = revertReason(error);
    if (reason !== undefined) throw new TransactionWouldRevertError(`${key}: ${functionName} would revert with ${reason}`, reason, { cause: error });
    throw error;
  }
  const data = encodeFunctionData({ abi, functionName, args });
  const gas = await client.estimateGas({ account, to, data });
  const fees = await client.estimateFeesPerGas();
  const db = await database.connect();
  try {
    await db.query('BEGIN');
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`chain-tx:${network.chain}:${account.address.toLowerCase()}`]);
    const raced = await findChainTransaction(db, key);
    if (raced) {
      await db.query('COMMIT');
      return raced;
    }
    const onChain = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
    const nonce = Math.max(onChain, await nextStoredNonce(db, network.chain, account.address.toLowerCase()));
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: network.chainId,
      nonce,
      to,
      data,
      gas: (gas * 12n) / 10n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const record = { key, chain: network.chain, sender: account.address.toLowerCase(), nonce, txHash: keccak256(raw), raw };
    await insertChainTransaction(db, record);
    await db.query('COMMIT');
    return { ...record, state: 'signed', blockNumber: null };
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    db.release();
  }
}

/**
 * Sends the step's transaction once and waits for its receipt: signs and stores it on the first call, re-sends
 * the stored bytes on every later one. Throws `TransactionWouldRevertError` when the call reverts in estimation
 * (nothing stored); a transaction that reverts once mined is stored as `reverted` and answered with that status.
 */
export async function sendTransactionOnce(database: Database, parameters: SendOnceParameters): Promise<SentTransaction> {
  const stored = (await findChainTransaction(database, parameters.key)) ?? (await signAndStore(database, parameters));
  if (stored.state !== 'signed' && stored.blockNumber !== null) {
    return { txHash: stored.txHash, blockNumber: BigInt(stored.blockNumber), status: stored.state === 'confirmed' ? 'success' : 'reverted' };
  }
  const { client } = parameters;
  try {
    await client.sendRawTransaction({ serializedTransaction: stored.raw });
  } catch (error) {
    // Already in the pool or already mined (a retry after a broadcast that did reach the node): wait for it below.
    if (!(error instanceof BaseError) || !/already known|nonce too low|known transaction|already imported/i.test(`${error.shortMessage} ${error.details ?? ''}`)) {
      throw error;
    }
  }
  const receipt = await client.waitForTransactionReceipt({
    hash: stored.txHash,
    confirmations: Math.max(1, (parameters.confirmations ?? 0) + 1),
    pollingInterval: 200,
    timeout: 120_000,
  });
  const status = receipt.status === 'success' ? 'success' : 'reverted';
  await recordChainTransactionOutcome(database, parameters.key, {
    state: status === 'success' ? 'confirmed' : 'reverted',
    blockNumber: Number(receipt.blockNumber),
  });
  return { txHash: stored.txHash, blockNumber: receipt.blockNumber, status };
}
