/**
 * The ledger's Solana JSON-RPC 2.0 endpoint over HTTP (single and batch requests): the methods ordinary clients
 * (`@solana/kit`, `@solana/web3.js`) call for a token flow, answered from ledger.ts in the shapes a cluster answers.
 * Any other method is answered -32601 naming the ones served.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { isTokenProgram, parseMint, parseTokenAccount, TOKEN_PROGRAM, uiTokenAmount, type StoredAccount } from './accounts';
import { STATUS_CACHE_SLOTS, TransactionRefused, type Commitment, type Ledger, type TransactionRecord } from './ledger';
import { decodeWireTransaction } from './wire';

const base58Decoder = getBase58Decoder();
const base58Encoder = getBase58Encoder();
const MAX_SIGNATURES = 1000;

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Params = unknown[];
interface Config {
  commitment?: Commitment;
  encoding?: string;
  [key: string]: unknown;
}

const configOf = (params: Params, index: number): Config => (typeof params[index] === 'object' && params[index] !== null ? (params[index] as Config) : {});
function stringParam(params: Params, index: number, name: string): string {
  const value = params[index];
  if (typeof value !== 'string') throw new RpcError(-32602, `Invalid params: ${name} must be a string`);
  return value;
}
function addressParam(params: Params, index: number): string {
  const value = stringParam(params, index, 'address');
  try {
    if (base58Encoder.encode(value).length !== 32) throw new Error('length');
  } catch {
    throw new RpcError(-32602, `Invalid param: Invalid`);
  }
  return value;
}
const commitmentOf = (config: Config): Commitment => {
  const commitment = config.commitment ?? 'finalized';
  if (!['processed', 'confirmed', 'finalized'].includes(commitment)) throw new RpcError(-32602, `Invalid params: unknown commitment ${String(commitment)}`);
  return commitment;
};

function encodeAccount(ledger: Ledger, account: StoredAccount | undefined, encoding: string | undefined) {
  if (!account) return null;
  const data = Buffer.from(account.data, 'base64');
  const common = { lamports: Number(account.lamports), owner: account.owner, executable: account.executable, rentEpoch: 0, space: data.length };
  if (encoding === 'jsonParsed' && isTokenProgram(account.owner)) {
    const token = parseTokenAccount(account);
    const mint = parseMint(account);
    const program = account.owner === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
    if (token) {
      return { ...common, data: { program, space: data.length, parsed: { type: 'account', info: { mint: token.mint, owner: token.owner, state: token.state, isNative: false, tokenAmount: uiTokenAmount(token.amount, decimalsOf(token.mint)) } } } };
    }
    if (mint) {
      const info = { mintAuthority: mint.mintAuthority, supply: mint.supply.toString(), decimals: mint.decimals, isInitialized: true, freezeAuthority: mint.freezeAuthority };
      return { ...common, data: { program, space: data.length, parsed: { type: 'mint', info } } };
    }
  }
  if (encoding === 'base58' || encoding === 'binary') return { ...common, data: encoding === 'binary' ? base58Decoder.decode(data) : [base58Decoder.decode(data), 'base58'] };
  return { ...common, data: [account.data, 'base64'] };
  function decimalsOf(mintKey: string): number {
    return parseMint(ledger.account(mintKey, 'processed'))?.decimals ?? 0;
  }
}

function status(ledger: Ledger, record: TransactionRecord) {
  const confirmationStatus = record.slot <= ledger.slotAt('finalized') ? 'finalized' : record.slot <= ledger.slotAt('confirmed') ? 'confirmed' : 'processed';
  return {
    slot: record.slot,
    confirmations: confirmationStatus === 'finalized' ? null : ledger.slot - record.slot,
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    confirmationStatus,
  };
}

function encodeTransaction(record: TransactionRecord, encoding: string | undefined) {
  const meta = {
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    fee: record.fee,
    preBalances: record.preBalances,
    postBalances: record.postBalances,
    preTokenBalances: record.preTokenBalances,
    postTokenBalances: record.postTokenBalances,
    logMessages: record.logMessages,
    innerInstructions: [],
    rewards: [],
    loadedAddresses: { writable: [], readonly: [] },
    computeUnitsConsumed: record.computeUnitsConsumed,
  };
  if (!record.wire) return null;
  const common = { slot: record.slot, blockTime: record.blockTime, meta };
  if (encoding === 'base64') return { ...common, version: 0, transaction: [record.wire, 'base64'] };
  if (encoding === 'base58') return { ...common, version: 0, transaction: [base58Decoder.decode(Buffer.from(record.wire, 'base64')), 'base58'] };
  const { transaction, message } = decodeWireTransaction(Buffer.from(record.wire, 'base64'));
  if (!('instructions' in message)) throw new RpcError(-32602, 'Invalid params: this transaction version is answered in base64 only');
  const version = message.version === 'legacy' ? 'legacy' : 0;
  const signatures = Object.values(transaction.signatures).map((signature) => (signature ? base58Decoder.decode(signature) : '1'.repeat(64)));
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
  const keys = message.staticAccounts;
  if (encoding === 'jsonParsed') {
    const writable = (index: number) => (index < numSignerAccounts ? index < numSignerAccounts - numReadonlySignerAccounts : index < keys.length - numReadonlyNonSignerAccounts);
    return {
      ...common,
      version,
      transaction: {
        signatures,
        message: {
          accountKeys: keys.map((pubkey, index) => ({ pubkey, signer: index < numSignerAccounts, writable: writable(index), source: 'transaction' })),
          recentBlockhash: message.lifetimeToken,
          instructions: message.instructions.map((instruction) => ({
            programId: keys[instruction.programAddressIndex],
            accounts: (instruction.accountIndices ?? []).map((index) => keys[index]),
            data: base58Decoder.decode(instruction.data ?? new Uint8Array()),
            stackHeight: null,
          })),
        },
      },
    };
  }
  return {
    ...common,
    version,
    transaction: {
      signatures,
      message: {
        header: { numRequiredSignatures: numSignerAccounts, numReadonlySignedAccounts: numReadonlySignerAccounts, numReadonlyUnsignedAccounts: numReadonlyNonSignerAccounts },
        accountKeys: keys,
        recentBlockhash: message.lifetimeToken,
        instructions: message.instructions.map((instruction) => ({
          programIdIndex: instruction.programAddressIndex,
          accounts: instruction.accountIndices ?? [],
          data: base58Decoder.decode(instruction.data ?? new Uint8Array()),
          stackHeight: null,
        })),
        ...(version === 0 ? { addressTableLookups: [] } : {}),
      },
    },
  };
}

const MEMO_PROGRAMS = new Set(['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo']);

/** A transaction's memos as a cluster lists them in getSignaturesForAddress (`[length] text`, joined by `; `), or null. */
function memoOf(record: TransactionRecord): string | null {
  if (!record.wire) return null;
  const { message } = decodeWireTransaction(Buffer.from(record.wire, 'base64'));
  if (!('instructions' in message)) return null;
  const memos = message.instructions
    .filter((instruction) => MEMO_PROGRAMS.has(message.staticAccounts[instruction.programAddressIndex]!))
    .map((instruction) => {
      const text = Buffer.from(instruction.data ?? new Uint8Array()).toString('utf8');
      return `[${Buffer.byteLength(text)}] ${text}`;
    });
  return memos.length > 0 ? memos.join('; ') : null;
}

function wireParam(params: Params, config: Config): Uint8Array {
  const text = stringParam(params, 0, 'transaction');
  return config.encoding === 'base64' ? Buffer.from(text, 'base64') : Uint8Array.from(base58Encoder.encode(text));
}

function preflightFailure(refused: TransactionRefused): RpcError {
  return new RpcError(-32002, refused.message, { err: refused.err, logs: refused.logs, accounts: null, unitsConsumed: 0, returnData: null });
}

/** Each method: its params in, its `result` out. */
function methods(ledger: Ledger): Record<string, (params: Params) => unknown> {
  const context = (commitment: Commitment = 'processed') => ({ slot: ledger.slotAt(commitment), apiVersion: '2.2.0' });
  const tokenAmountOf = (key: string, commitment: Commitment) => {
    const token = parseTokenAccount(ledger.account(key, commitment));
    if (!token) throw new RpcError(-32602, 'Invalid param: not a Token account');
    const decimals = parseMint(ledger.account(token.mint, 'processed'))?.decimals ?? 0;
    return uiTokenAmount(token.amount, decimals);
  };
  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0', 'feature-set': 0, ledger: 'litesvm' }),
    getGenesisHash: () => ledger.genesisHash,
    getSlot: (params) => ledger.slotAt(commitmentOf(configOf(params, 0))),
    getBlockHeight: (params) => ledger.slotAt(commitmentOf(configOf(params, 0))),
    getBlock: (params) => {
      const slot = params[0];
      if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) throw new RpcError(-32602, 'Invalid params: the slot must be a non-negative integer');
      const config = configOf(params, 1);
      const commitment = commitmentOf(config);
      if (commitment === 'processed') throw new RpcError(-32602, 'Method does not support commitment below `confirmed`');
      if (config.transactionDetails !== 'none') throw new RpcError(-32602, 'Invalid params: only transactionDetails "none" is served');
      if (slot > ledger.slotAt(commitment)) throw new RpcError(-32004, `Block not available for slot ${slot}`);
      const block = ledger.block(slot);
      if (!block) throw new RpcError(-32007, `Slot ${slot} was skipped, or missing in long-term storage`);
      return { ...block, parentSlot: Math.max(0, slot - 1), blockHeight: slot, ...(config.rewards === false ? {} : { rewards: [] }) };
    },
    getEpochInfo: (params) => {
      const slot = ledger.slotAt(commitmentOf(configOf(params, 0)));
      return { absoluteSlot: slot, blockHeight: slot, epoch: Math.floor(slot / 432_000), slotIndex: slot % 432_000, slotsInEpoch: 432_000, transactionCount: ledger.transactionCount };
    },
    getLatestBlockhash: (params) => {
      const commitment = commitmentOf(configOf(params, 0));
      const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash(commitment);
      return { context: context(commitment), value: { blockhash, lastValidBlockHeight } };
    },
    isBlockhashValid: (params) => ({ context: context(), value: ledger.isBlockhashValid(stringParam(params, 0, 'blockhash')) }),
    getMinimumBalanceForRentExemption: (params) => {
      const size = params[0];
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) throw new RpcError(-32602, 'Invalid params: data length must be a non-negative integer');
      return Number(ledger.minimumBalanceForRentExemption(size));
    },
    getBalance: (params) => {
      const commitment = commitmentOf(configOf(params, 1));
      return { context: context(commitment), value: Number(ledger.account(addressParam(params, 0), commitment)?.lamports ?? 0) };
    },
    getAccountInfo: (params) => {
      const config = configOf(params, 1);
      const commitment = commitmentOf(config);
      const key = addressParam(params, 0);
      return { context: context(commitment), value: encodeAccount(ledger, ledger.account(key, commitment), config.encoding) };
    },
    getMultipleAccounts: (params) => {
      const config = configOf(params, 1);
      const commitment = commitmentOf(config);
      if (!Array.isArray(params[0])) throw new RpcError(-32602, 'Invalid params: expected an array of addresses');
      const keys = params[0].map((_, index) => addressParam(params[0] as Params, index));
      return { context: context(commitment), value: keys.map((key) => encodeAccount(ledger, ledger.account(key, commitment), config.encoding)) };
    },
    getTokenAccountBalance: (params) => {
      const commitment = commitmentOf(configOf(params, 1));
      return { context: context(commitment), value: tokenAmountOf(addressParam(params, 0), commitment) };
    },
    getTokenSupply: (params) => {
      const commitment = commitmentOf(configOf(params, 1));
      const mint = parseMint(ledger.account(addressParam(params, 0), commitment));
      if (!mint) throw new RpcError(-32602, 'Invalid param: not a Token mint');
      return { context: context(commitment), value: uiTokenAmount(mint.supply, mint.decimals) };
    },
    getTokenAccountsByOwner: (params) => {
      const owner = addressParam(params, 0);
      const filter = (params[1] ?? {}) as { mint?: string; programId?: string };
      if (!filter.mint && !filter.programId) throw new RpcError(-32602, 'Invalid params: a mint or programId filter is required');
      const config = configOf(params, 2);
      const commitment = commitmentOf(config);
      const accounts = ledger.tokenAccountsByOwner(owner, filter, commitment);
      return { context: context(commitment), value: accounts.map(([pubkey, account]) => ({ pubkey, account: encodeAccount(ledger, account, config.encoding) })) };
    },
    getSignatureStatuses: (params) => {
      if (!Array.isArray(params[0])) throw new RpcError(-32602, 'Invalid params: expected an array of signatures');
      if (params[0].length > 256) throw new RpcError(-32602, 'Invalid params: too many inputs provided; max 256');
      const search = configOf(params, 1).searchTransactionHistory === true;
      return {
        context: context(),
        value: params[0].map((signature) => {
          const record = typeof signature === 'string' ? ledger.record(signature) : undefined;
          if (!record || (!search && record.slot < ledger.slot - STATUS_CACHE_SLOTS)) return null;
          return status(ledger, record);
        }),
      };
    },
    getTransaction: (params) => {
      const config = configOf(params, 1);
      const commitment = commitmentOf(config);
      if (commitment === 'processed') throw new RpcError(-32602, 'Method does not support commitment below `confirmed`');
      const record = ledger.record(stringParam(params, 0, 'signature'));
      if (!record || record.slot > ledger.slotAt(commitment)) return null;
      return encodeTransaction(record, config.encoding);
    },
    getSignaturesForAddress: (params) => {
      const config = configOf(params, 1);
      const commitment = commitmentOf(config);
      if (commitment === 'processed') throw new RpcError(-32602, 'Method does not support commitment below `confirmed`');
      const limit = typeof config.limit === 'number' ? config.limit : MAX_SIGNATURES;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES) throw new RpcError(-32602, `Invalid limit; max ${MAX_SIGNATURES}`);
      let records = ledger.signaturesFor(addressParam(params, 0), commitment);
      if (typeof config.before === 'string') {
        const index = records.findIndex((record) => record.signature === config.before);
        records = index === -1 ? [] : records.slice(index + 1);
      }
      if (typeof config.until === 'string') {
        const index = records.findIndex((record) => record.signature === config.until);
        if (index !== -1) records = records.slice(0, index);
      }
      return records.slice(0, limit).map((record) => ({
        signature: record.signature,
        slot: record.slot,
        err: record.err,
        memo: memoOf(record),
        blockTime: record.blockTime,
        confirmationStatus: status(ledger, record).confirmationStatus,
      }));
    },
    requestAirdrop: (params) => {
      const amount = params[1];
      if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) throw new RpcError(-32602, 'Invalid params: lamports must be a positive integer');
      return ledger.airdrop(addressParam(params, 0), BigInt(amount)).signature;
    },
    sendTransaction: (params) => {
      const config = configOf(params, 1);
      try {
        return ledger.send(wireParam(params, config), { preflight: config.skipPreflight !== true }).signature;
      } catch (error) {
        if (error instanceof TransactionRefused) {
          // Skipping preflight, a cluster answers a duplicate's signature and drops it; it never lands twice.
          if (error.err === 'AlreadyProcessed' && config.skipPreflight === true) return base58Decoder.decode(Object.values(decodeWireTransaction(wireParam(params, config)).transaction.signatures)[0]!);
          throw preflightFailure(error);
        }
        throw error;
      }
    },
    simulateTransaction: (params) => {
      const config = configOf(params, 1);
      const replace = config.replaceRecentBlockhash === true;
      try {
        const result = ledger.simulate(wireParam(params, config), { checkBlockhash: !replace });
        return {
          context: context(),
          value: {
            err: result.err,
            logs: result.logs,
            accounts: null,
            unitsConsumed: result.unitsConsumed,
            returnData: null,
            ...(replace ? { replacementBlockhash: ledger.latestBlockhash('processed') } : {}),
          },
        };
      } catch (error) {
        if (error instanceof TransactionRefused) return { context: context(), value: { err: error.err, logs: [], accounts: null, unitsConsumed: 0, returnData: null } };
        throw error;
      }
    },
  };
}

interface Request {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

function answer(table: Record<string, (params: Params) => unknown>, request: Request) {
  const id = request.id ?? null;
  try {
    if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') throw new RpcError(-32600, 'Invalid request');
    const method = Object.hasOwn(table, request.method) ? table[request.method] : undefined;
    if (!method) throw new RpcError(-32601, `Method not found: ${request.method} (this development ledger serves ${Object.keys(table).join(', ')})`);
    const params = request.params === undefined ? [] : request.params;
    if (!Array.isArray(params)) throw new RpcError(-32602, 'Invalid params: expected an array');
    return { jsonrpc: '2.0', id, result: method(params) };
  } catch (error) {
    if (error instanceof RpcError) return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } };
    if (error instanceof Error && /decode|Codec|bytes|SOLANA_ERROR/i.test(`${error.name} ${error.message}`)) {
      return { jsonrpc: '2.0', id, error: { code: -32602, message: `Invalid params: ${error.message}` } };
    }
    return { jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** An HTTP server answering JSON-RPC 2.0 from `ledger` (not yet listening). */
export function createRpcServer(ledger: Ledger): Server {
  const table = methods(ledger);
  return createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST') {
        response.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(await body(request));
      } catch {
        parsed = undefined;
      }
      const result =
        parsed === undefined
          ? { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }
          : Array.isArray(parsed)
            ? parsed.map((entry) => answer(table, entry as Request))
            : answer(table, parsed as Request);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    })();
  });
}
