/**
 * The ledger: one litesvm bank (the real SPL Token, Token-2022, associated-token and memo programs it carries) with
 * what litesvm leaves to a cluster — slots on a timer, commitments behind the tip, a blockhash queue, signature
 * statuses, a history per address, duplicate refusal, and persistence across restarts. The JSON-RPC server (rpc.ts)
 * answers from it; nothing else reads litesvm.
 *
 * Persistence: every accepted transaction (and airdrop) is appended to a journal before it is answered; litesvm's own
 * snapshot (`toBytes`, the full bank) is written with the ledger's bookkeeping at the next slot after a change and on
 * stop, stamped with the journal length it covers. At start the snapshot is loaded and the journal entries past it
 * are executed again, so a kill loses nothing that was answered.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  address,
  getBase58Decoder,
  getBase58Encoder,
  lamports,
  type Transaction,
} from '@solana/kit';
import { LiteSVM, TransactionMetadata, type FailedTransactionMetadata } from 'litesvm';
import { durableNonce, parseMint, parseTokenAccount, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, uiTokenAmount, type StoredAccount } from './accounts';
import { transactionError, type TransactionError } from './errors';
import { LedgerStateFiles } from './state-files';
import { advancedNonceAccount, decodeWireTransaction, type WireMessage } from './wire';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface LedgerOptions {
  /** How often a slot passes (default 400 ms, a cluster's pace). */
  slotMs?: number;
  /** How many slots `confirmed` is behind the tip (default 1). */
  confirmedLag?: number;
  /** How many slots `finalized` is behind the tip (default 32). */
  finalizedLag?: number;
  /** How many slots a blockhash stays valid (default 150, as on a cluster). */
  blockhashValiditySlots?: number;
  /** Keeps the state here across restarts; unset: in memory only. */
  stateDirectory?: string;
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: ReturnType<typeof uiTokenAmount>;
}

/** A transaction the ledger holds, as stored in its journal. */
export interface TransactionRecord {
  kind: 'transaction' | 'airdrop';
  signature: string;
  slot: number;
  blockTime: number;
  /** The blockhash of its slot and of the slot before (absent in journals written before they were kept). */
  blockhash?: string;
  previousBlockhash?: string;
  /** The wire transaction, base64 (transactions); the recipient and amount (airdrops). */
  wire?: string;
  airdrop?: { address: string; lamports: string };
  accountKeys: string[];
  err: TransactionError | null;
  fee: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logMessages: string[];
  computeUnitsConsumed: number;
}

/** Why a transaction was not executed (the RPC answers it as a preflight failure). */
export class TransactionRefused extends Error {
  constructor(
    readonly err: TransactionError,
    message: string,
    readonly logs: string[] = [],
  ) {
    super(message);
  }
}

interface AccountVersion {
  slot: number;
  account: StoredAccount | null;
}

interface SnapshotMeta {
  journalLength: number;
  slot: number;
  genesisHash: string;
  blockhashes: [string, number][];
  versions: [string, AccountVersion[]][];
}

const FEE_PER_SIGNATURE = 5000;
/** A cluster's status cache: statuses of this many recent slots answer without `searchTransactionHistory`. */
export const STATUS_CACHE_SLOTS = 300;

const base58 = getBase58Decoder();

export class Ledger {
  readonly slotMs: number;
  readonly confirmedLag: number;
  readonly finalizedLag: number;
  readonly blockhashValiditySlots: number;
  private svm: LiteSVM;
  private slotNumber = 1;
  private genesis: string;
  private readonly blockhashSlots = new Map<string, number>();
  private readonly records = new Map<string, TransactionRecord>();
  /** The blocks of the slots transactions landed in: their blockhash and the one before. */
  private readonly blocks = new Map<number, { blockhash: string; previousBlockhash: string; blockTime: number }>();
  /** Signatures touching each address, oldest first. */
  private readonly byAddress = new Map<string, string[]>();
  /** Each account changed in the last `finalizedLag` slots: its versions, oldest first (the first one as of before). */
  private readonly versions = new Map<string, AccountVersion[]>();
  private journalLength = 0;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly files: LedgerStateFiles<TransactionRecord, SnapshotMeta> | undefined;

  constructor(options: LedgerOptions = {}) {
    this.slotMs = options.slotMs ?? 400;
    this.confirmedLag = options.confirmedLag ?? 1;
    this.finalizedLag = options.finalizedLag ?? 32;
    this.blockhashValiditySlots = options.blockhashValiditySlots ?? 150;
    this.files = options.stateDirectory ? new LedgerStateFiles(options.stateDirectory) : undefined;
    this.svm = Ledger.freshBank();
    this.genesis = base58.decode(randomBytes(32));
    if (this.files) this.restore(this.files);
    this.svm.warpToSlot(BigInt(this.slotNumber));
    this.blockhashSlots.set(this.svm.latestBlockhash(), this.slotNumber);
  }

  /** Blockhash ages and duplicates are the ledger's own checks (litesvm's blockhash check knows one blockhash only). */
  private static freshBank(): LiteSVM {
    return new LiteSVM().withBlockhashCheck(false).withTransactionHistory(0n);
  }

  /** Starts the slot timer. */
  start(): void {
    this.timer ??= setInterval(() => this.advanceSlot(), this.slotMs);
  }

  /** Stops the slot timer and writes the snapshot. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.save();
  }

  /** Made at the ledger's first start, kept with its state. */
  get genesisHash(): string {
    return this.genesis;
  }

  get slot(): number {
    return this.slotNumber;
  }

  slotAt(commitment: Commitment = 'finalized'): number {
    const lag = commitment === 'processed' ? 0 : commitment === 'confirmed' ? this.confirmedLag : this.finalizedLag;
    return Math.max(0, this.slotNumber - lag);
  }

  /** One slot passes: a new blockhash, commitments move on, versions older than `finalized` are folded. */
  advanceSlot(): void {
    this.slotNumber += 1;
    this.svm.warpToSlot(BigInt(this.slotNumber));
    this.svm.expireBlockhash();
    this.blockhashSlots.set(this.svm.latestBlockhash(), this.slotNumber);
    const oldest = this.slotNumber - this.blockhashValiditySlots - this.finalizedLag;
    for (const [hash, slot] of this.blockhashSlots) if (slot < oldest) this.blockhashSlots.delete(hash);
    const finalized = this.slotAt('finalized');
    for (const [key, versions] of this.versions) {
      while (versions.length > 1 && versions[1]!.slot <= finalized) versions.shift();
      if (versions.length === 1 && versions[0]!.slot <= finalized) this.versions.delete(key);
    }
    if (this.dirty) this.save();
  }

  /** The blockhash a slot took (kept for the last blockhashValiditySlots + finalizedLag slots). */
  private blockhashOf(slot: number): string | undefined {
    for (const [hash, at] of this.blockhashSlots) if (at === slot) return hash;
    return undefined;
  }

  /**
   * The block of `slot`: its blockhash and the previous one, and its time — kept for every slot a transaction landed
   * in, and known for recent slots; undefined for an older empty slot.
   */
  block(slot: number): { blockhash: string; previousBlockhash: string; blockTime: number | null } | undefined {
    const kept = this.blocks.get(slot);
    if (kept) return kept;
    const blockhash = this.blockhashOf(slot);
    return blockhash === undefined ? undefined : { blockhash, previousBlockhash: this.blockhashOf(slot - 1) ?? blockhash, blockTime: null };
  }

  /** The blockhash of the slot `commitment` reads, with the last block height it is valid at. */
  latestBlockhash(commitment: Commitment = 'finalized'): { blockhash: string; slot: number; lastValidBlockHeight: number } {
    const slot = this.slotAt(commitment);
    let best: [string, number] | undefined;
    for (const entry of this.blockhashSlots) if (entry[1] <= slot && (!best || entry[1] > best[1])) best = entry;
    const [blockhash, at] = best ?? [this.svm.latestBlockhash(), this.slotNumber];
    return { blockhash, slot: at, lastValidBlockHeight: at + this.blockhashValiditySlots };
  }

  isBlockhashValid(blockhash: string): boolean {
    const slot = this.blockhashSlots.get(blockhash);
    return slot !== undefined && slot + this.blockhashValiditySlots >= this.slotNumber;
  }

  minimumBalanceForRentExemption(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }

  /** The account as of the slot `commitment` reads (versions kept for the last `finalizedLag` slots). */
  account(key: string, commitment: Commitment = 'finalized'): StoredAccount | undefined {
    const versions = this.versions.get(key);
    if (versions && commitment !== 'processed') {
      const slot = this.slotAt(commitment);
      const version = [...versions].reverse().find((candidate) => candidate.slot <= slot) ?? versions[0]!;
      return version.account ?? undefined;
    }
    return this.currentAccount(key);
  }

  private currentAccount(key: string): StoredAccount | undefined {
    const account = this.svm.getAccount(address(key));
    if (!account.exists || (account.lamports === 0n && account.data.length === 0)) return undefined;
    return { lamports: account.lamports.toString(), owner: account.programAddress, data: Buffer.from(account.data).toString('base64'), executable: account.executable };
  }

  /** The token accounts `owner` holds as of `commitment` (those existing now; one closed since then is not listed). */
  tokenAccountsByOwner(owner: string, filter: { mint?: string; programId?: string }, commitment: Commitment): [string, StoredAccount][] {
    const programs = filter.programId ? [filter.programId] : [TOKEN_PROGRAM, TOKEN_2022_PROGRAM];
    const found: [string, StoredAccount][] = [];
    for (const program of programs) {
      for (const candidate of this.svm.getProgramAccounts(address(program))) {
        const account = this.account(candidate.address, commitment);
        const token = parseTokenAccount(account);
        if (token && token.owner === owner && (!filter.mint || token.mint === filter.mint)) found.push([candidate.address, account!]);
      }
    }
    return found;
  }

  record(signature: string): TransactionRecord | undefined {
    return this.records.get(signature);
  }

  /** The signatures touching `key` seen at `commitment`, newest first. */
  signaturesFor(key: string, commitment: Commitment): TransactionRecord[] {
    const slot = this.slotAt(commitment);
    return (this.byAddress.get(key) ?? [])
      .map((signature) => this.records.get(signature)!)
      .filter((record) => record.slot <= slot)
      .reverse();
  }

  get transactionCount(): number {
    return this.records.size;
  }

  /** Runs a transaction without keeping anything. */
  simulate(wire: Uint8Array, options: { checkBlockhash: boolean }): { err: TransactionError | null; logs: string[]; unitsConsumed: number } {
    const { transaction, message } = decodeWireTransaction(wire);
    if (options.checkBlockhash) this.checkAge(message);
    const result = this.svm.simulateTransaction(transaction);
    const failed = 'err' in result ? (result as FailedTransactionMetadata) : undefined;
    const meta = failed ? failed.meta() : result.meta();
    return { err: failed ? transactionError(failed.err()) : null, logs: meta.logs(), unitsConsumed: Number(meta.computeUnitsConsumed()) };
  }

  /**
   * Executes a wire transaction in the current slot. Refused (TransactionRefused): a duplicate (AlreadyProcessed), an
   * expired or unknown blockhash (BlockhashNotFound), one refused before execution (SignatureFailure,
   * InsufficientFundsForFee, …); and, with `preflight`, one whose execution fails — without preflight a transaction
   * that fails in an instruction is kept, failed (its fee paid), as a cluster keeps it.
   */
  send(wire: Uint8Array, options: { preflight: boolean }): TransactionRecord {
    const { transaction, message } = decodeWireTransaction(wire);
    const signature = signatureOf(transaction);
    if (this.records.has(signature)) throw new TransactionRefused('AlreadyProcessed', 'This transaction has already been processed');
    this.checkAge(message);
    if (options.preflight) {
      const simulated = this.svm.simulateTransaction(transaction);
      if ('err' in simulated) {
        const failed = simulated as FailedTransactionMetadata;
        const error = transactionError(failed.err());
        throw new TransactionRefused(error, `Transaction simulation failed: ${JSON.stringify(error)}`, failed.meta().logs());
      }
    }
    return this.execute({ kind: 'transaction', wire: Buffer.from(wire).toString('base64') }, transaction, message.staticAccounts);
  }

  /** Gives `to` lamports from litesvm's faucet, as a transaction with a signature of its own. */
  airdrop(to: string, amount: bigint): TransactionRecord {
    return this.execute({ kind: 'airdrop', airdrop: { address: to, lamports: amount.toString() } }, undefined, [to]);
  }

  private checkAge(message: WireMessage): void {
    const blockhash = message.lifetimeToken;
    if (this.isBlockhashValid(blockhash)) return;
    const nonceAccount = advancedNonceAccount(message);
    if (nonceAccount && durableNonce(this.currentAccount(nonceAccount)) === blockhash) return;
    throw new TransactionRefused('BlockhashNotFound', 'Blockhash not found');
  }

  /**
   * What a cluster keeps of a durable-nonce transaction that failed in an instruction and litesvm leaves out (it
   * takes the fee but keeps the nonce account as it was): the nonce, advanced — so it can never be used again.
   */
  private keepFailedNonce(wire: Uint8Array): void {
    const nonceAccount = advancedNonceAccount(decodeWireTransaction(wire).message);
    if (!nonceAccount || durableNonce(this.currentAccount(nonceAccount)) === undefined) return;
    const nonce = this.svm.getAccount(address(nonceAccount));
    if (!nonce.exists) return;
    const data = Buffer.from(nonce.data);
    const blockhash = Uint8Array.from(getBase58Encoder().encode(this.svm.latestBlockhash()));
    createHash('sha256').update('DURABLE_NONCE').update(blockhash).digest().copy(data, 40);
    this.svm.setAccount({ ...nonce, data: new Uint8Array(data) });
  }

  private execute(entry: Pick<TransactionRecord, 'kind' | 'wire' | 'airdrop'>, transaction: Transaction | undefined, keys: readonly string[]): TransactionRecord {
    const before = keys.map((key) => this.currentAccount(key));
    const result = transaction ? this.svm.sendTransaction(transaction) : this.svm.airdrop(address(entry.airdrop!.address), lamports(BigInt(entry.airdrop!.lamports)));
    if (!result) throw new Error('litesvm answered no result for an airdrop');
    const failed = result instanceof TransactionMetadata ? undefined : (result as FailedTransactionMetadata);
    const error = failed && transactionError(failed.err());
    // Only a transaction that failed in an instruction lands (its fee paid); one refused before execution (a bad
    // signature, a fee payer that cannot pay) never does — a cluster drops it.
    if (error !== undefined && !(typeof error === 'object' && 'InstructionError' in error)) {
      throw new TransactionRefused(error, `Transaction refused: ${JSON.stringify(error)}`, failed!.meta().logs());
    }
    const meta = failed ? failed.meta() : (result as TransactionMetadata);
    const fee = transaction ? FEE_PER_SIGNATURE * Object.keys(transaction.signatures).length : 0;
    if (failed && entry.wire) this.keepFailedNonce(Buffer.from(entry.wire, 'base64'));
    const after = keys.map((key) => this.currentAccount(key));
    const record: TransactionRecord = {
      ...entry,
      signature: transaction ? signatureOf(transaction) : base58.decode(meta.signature()),
      slot: this.slotNumber,
      blockTime: Math.floor(Date.now() / 1000),
      blockhash: this.svm.latestBlockhash(),
      previousBlockhash: this.blockhashOf(this.slotNumber - 1) ?? this.svm.latestBlockhash(),
      accountKeys: [...keys],
      err: error ?? null,
      fee,
      preBalances: before.map((account) => Number(account?.lamports ?? 0)),
      postBalances: after.map((account) => Number(account?.lamports ?? 0)),
      preTokenBalances: this.tokenBalances(before),
      postTokenBalances: this.tokenBalances(after),
      logMessages: meta.logs(),
      computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
    };
    keys.forEach((key, index) => this.keepVersion(key, before[index], after[index]));
    this.remember(record);
    this.files?.append(record);
    this.journalLength += 1;
    this.dirty = true;
    return record;
  }

  private keepVersion(key: string, before: StoredAccount | undefined, after: StoredAccount | undefined): void {
    if (JSON.stringify(before) === JSON.stringify(after)) return;
    let versions = this.versions.get(key);
    if (!versions) this.versions.set(key, (versions = [{ slot: -1, account: before ?? null }]));
    if (versions.at(-1)!.slot === this.slotNumber) versions.pop();
    versions.push({ slot: this.slotNumber, account: after ?? null });
  }

  private tokenBalances(accounts: (StoredAccount | undefined)[]): TokenBalance[] {
    return accounts.flatMap((account, accountIndex) => {
      const token = parseTokenAccount(account);
      if (!token) return [];
      const mint = parseMint(this.currentAccount(token.mint));
      return [{ accountIndex, mint: token.mint, owner: token.owner, programId: account!.owner, uiTokenAmount: uiTokenAmount(token.amount, mint?.decimals ?? 0) }];
    });
  }

  private remember(record: TransactionRecord): void {
    this.records.set(record.signature, record);
    if (record.blockhash && record.previousBlockhash && !this.blocks.has(record.slot)) {
      this.blocks.set(record.slot, { blockhash: record.blockhash, previousBlockhash: record.previousBlockhash, blockTime: record.blockTime });
    }
    for (const key of new Set(record.accountKeys)) {
      const list = this.byAddress.get(key);
      if (list) list.push(record.signature);
      else this.byAddress.set(key, [record.signature]);
    }
  }

  /** Writes the bank and the bookkeeping. */
  private save(): void {
    this.dirty = false;
    this.files?.writeSnapshot(
      { journalLength: this.journalLength, slot: this.slotNumber, genesisHash: this.genesis, blockhashes: [...this.blockhashSlots], versions: [...this.versions] },
      this.svm.toBytes(),
    );
  }

  /** Loads the snapshot, then executes the journal's entries past it again (and indexes all of them). */
  private restore(files: LedgerStateFiles<TransactionRecord, SnapshotMeta>): void {
    const snapshot = files.readSnapshot();
    if (snapshot) {
      const { meta } = snapshot;
      this.svm = LiteSVM.fromBytes(snapshot.bank).withBlockhashCheck(false).withTransactionHistory(0n);
      this.slotNumber = meta.slot;
      this.genesis = meta.genesisHash;
      for (const [hash, slot] of meta.blockhashes) this.blockhashSlots.set(hash, slot);
      for (const [key, versions] of meta.versions) this.versions.set(key, versions);
    }
    const covered = snapshot?.meta.journalLength ?? 0;
    const journal = files.readJournal();
    journal.forEach((record, index) => {
      if (index >= covered) this.replay(record);
      this.remember(record);
    });
    this.journalLength = journal.length;
    if (journal.length > covered) this.save();
  }

  /** Executes a journal entry past the snapshot again, in its slot. */
  private replay(record: TransactionRecord): void {
    this.slotNumber = Math.max(this.slotNumber, record.slot);
    this.svm.warpToSlot(BigInt(record.slot));
    this.svm.expireBlockhash(); // an advance-nonce instruction needs a blockhash other than the nonce it replaces
    const before = record.accountKeys.map((key) => this.currentAccount(key));
    if (record.kind === 'airdrop') this.svm.airdrop(address(record.airdrop!.address), lamports(BigInt(record.airdrop!.lamports)));
    else {
      const wire = Buffer.from(record.wire!, 'base64');
      this.svm.sendTransaction(decodeWireTransaction(wire).transaction);
      if (record.err !== null) this.keepFailedNonce(wire);
    }
    record.accountKeys.forEach((key, index) => this.keepVersion(key, before[index], this.currentAccount(key)));
  }
}

function signatureOf(transaction: Transaction): string {
  const first = Object.values(transaction.signatures)[0];
  if (!first) throw new TransactionRefused('MissingSignatureForFee', 'Transaction has no fee payer signature');
  return base58.decode(first);
}

