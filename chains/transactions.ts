/**
 * Sends an issuer transaction at most once per step. The transaction is signed with an explicit nonce and stored
 * under the step's key (workflow id and step) before it is broadcast; a retry of the step finds it, re-sends the
 * same bytes and waits for the same hash. Nonces are allocated under a PostgreSQL advisory lock per sender and
 * chain, so concurrent steps never sign two transactions with one nonce.
 *
 * A caller that acts on the outcome irreversibly (the partner mint before the broker's callback) asks for finality:
 * the outcome is recorded `confirmed` only once the including block is final, and a transaction a reorganisation
 * dropped is sent again with the same bytes (same nonce, same hash).
 *
 * Not handled: replacing a stored transaction that the network dropped for good (fee spikes on a real chain); an
 * operator replaces it by hand.
 */
import { inTransaction, type Database } from '../db/pool';
import {
  findChainTransaction,
  insertChainTransaction,
  lockSenderNonces,
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
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from 'viem';
import { finalBlockNumber, type ChainFinality } from './finality';
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
  /** Wait until the including block is final under this rule (absent: the including block is enough). */
  finality?: ChainFinality;
  /** Called at every look at the chain while waiting (an activity's heartbeat). */
  onWait?: () => void;
  /** With `finality`: told the hash once the transaction is included, while its block is not final yet. */
  onIncluded?: (txHash: Hex) => Promise<unknown>;
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
  return await inTransaction(database, async (db): Promise<ChainTransactionRecord> => {
    await lockSenderNonces(db, network.chain, account.address.toLowerCase());
    const raced = await findChainTransaction(db, key);
    if (raced) return raced;
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
    return { ...record, state: 'signed', blockNumber: null };
  });
}

/** Receipts are looked for this often; the stored bytes are sent again this often while none is found. */
const RECEIPT_POLL_MS = 200;
const REBROADCAST_MS = 5_000;
/** Not included within this long: the step fails (and is retried with backoff, sending the same bytes again). */
const INCLUSION_TIMEOUT_MS = 120_000;

async function broadcast(client: PublicClient, raw: Hex): Promise<void> {
  try {
    await client.sendRawTransaction({ serializedTransaction: raw });
  } catch (error) {
    // Already in the pool or already mined (a retry after a broadcast that did reach the node): wait for it below.
    if (!(error instanceof BaseError) || !/already known|nonce too low|known transaction|already imported/i.test(`${error.shortMessage} ${error.details ?? ''}`)) {
      throw error;
    }
  }
}

/** The transaction's receipt on the chain as the node now has it, if it is included. */
export async function receiptOf(client: PublicClient, hash: Hex): Promise<TransactionReceipt | undefined> {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return undefined;
    throw error;
  }
}

/**
 * Waits for the receipt of the stored transaction and, with `finality`, for its block to be final and still the
 * chain's: a receipt that vanishes (its block left the chain) has the same bytes sent again (same nonce, same hash)
 * and is waited for again.
 */
async function settled(parameters: SendOnceParameters, stored: ChainTransactionRecord): Promise<TransactionReceipt> {
  const { client, finality, onWait } = parameters;
  let told = false;
  let sentAt = Date.now();
  let includeBy = sentAt + INCLUSION_TIMEOUT_MS;
  for (;; await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS))) {
    onWait?.();
    const receipt = await receiptOf(client, stored.txHash);
    if (!receipt) {
      if (Date.now() > includeBy) throw new Error(`${parameters.key}: ${stored.txHash} not included within ${INCLUSION_TIMEOUT_MS} ms`);
      if (Date.now() - sentAt >= REBROADCAST_MS) {
        await broadcast(client, stored.raw);
        sentAt = Date.now();
      }
      continue;
    }
    if (!finality) return receipt;
    if (!told) {
      await parameters.onIncluded?.(stored.txHash);
      told = true;
    }
    const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
    if ((await finalBlockNumber(client, finality, head)) < Number(receipt.blockNumber)) {
      // Not final yet: should the receipt vanish meanwhile, send the bytes again at once.
      sentAt = 0;
      includeBy = Date.now() + INCLUSION_TIMEOUT_MS;
      continue;
    }
    const block = await client.getBlock({ blockNumber: receipt.blockNumber });
    if (block.hash === receipt.blockHash) return receipt;
  }
}

/**
 * Sends the step's transaction once and waits for its receipt — with `finality`, for its block to be final: signs
 * and stores it on the first call, re-sends the stored bytes on every later one (and whenever a reorganisation drops
 * it). Throws `TransactionWouldRevertError` when the call reverts in estimation (nothing stored); a transaction that
 * reverts once mined is stored as `reverted` and answered with that status. The outcome is recorded only once it is
 * as settled as asked.
 */
export async function sendTransactionOnce(database: Database, parameters: SendOnceParameters): Promise<SentTransaction> {
  const stored = (await findChainTransaction(database, parameters.key)) ?? (await signAndStore(database, parameters));
  if (stored.state !== 'signed' && stored.blockNumber !== null) {
    return { txHash: stored.txHash, blockNumber: BigInt(stored.blockNumber), status: stored.state === 'confirmed' ? 'success' : 'reverted' };
  }
  await broadcast(parameters.client, stored.raw);
  const receipt = await settled(parameters, stored);
  const status = receipt.status === 'success' ? 'success' : 'reverted';
  await recordChainTransactionOutcome(database, parameters.key, {
    state: status === 'success' ? 'confirmed' : 'reverted',
    blockNumber: Number(receipt.blockNumber),
    blockHash: receipt.blockHash,
  });
  return { txHash: stored.txHash, blockNumber: receipt.blockNumber, status };
}
