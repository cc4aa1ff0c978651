/**
 * A Solana ledger in the test's own process: litesvm with the real System, SPL Token, associated-token and memo
 * programs, and the few set-up steps the attestation tests need (keys, mints, token accounts, durable nonce
 * accounts), each sent as an ordinary signed transaction.
 */
import { ed25519 } from '@noble/curves/ed25519';
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getAddressDecoder,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayer,
  type Address,
  type Instruction,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import { getCreateAccountInstruction, getInitializeNonceAccountInstruction, getNonceDecoder, getNonceSize, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getTokenDecoder,
} from '@solana-program/token';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { decodeNonceValue, type SolanaNonceLedger } from '../../chains/solana-ledger';
import { base64ToBytes } from '../../signing';

/** An ed25519 key pair: the 32-byte seed and its base58 address. */
export interface TestKey {
  address: Address;
  seed: Uint8Array;
  /** Solana's 64-byte `seed ‖ public key` form. */
  secretKey: Uint8Array;
}

/** A key pair from a fixed seed byte, so a failing run can be repeated. */
export function testKey(seedByte: number): TestKey {
  const seed = new Uint8Array(32).fill(seedByte);
  const publicKey = ed25519.getPublicKey(seed);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed);
  secretKey.set(publicKey, 32);
  return { address: getAddressDecoder().decode(publicKey), seed, secretKey };
}

/** Adds `key`'s signature over the transaction's message. */
export function signedBy(transaction: Transaction, ...keys: TestKey[]): Transaction {
  const signatures = { ...transaction.signatures };
  for (const key of keys) signatures[key.address] = ed25519.sign(Uint8Array.from(transaction.messageBytes), key.seed) as SignatureBytes;
  return { ...transaction, signatures };
}

/** The ledger's answer to a transaction: its error text, or null when it landed. */
export function send(svm: LiteSVM, transaction: Transaction): string | null {
  const result = svm.sendTransaction(transaction);
  return result instanceof FailedTransactionMetadata ? result.toString() : null;
}

/** Sends instructions with `payer` paying and every key in `signers` (payer included) signing; throws if refused. */
export function sendInstructions(svm: LiteSVM, payer: TestKey, instructions: Instruction[], signers: TestKey[] = []): void {
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (draft) => setTransactionMessageFeePayer(payer.address, draft),
    (draft) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(draft),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  const error = send(svm, signedBy(compileTransaction(message), payer, ...signers));
  if (error !== null) throw new Error(`set-up transaction refused: ${error}`);
}

/** A new mint of `decimals` decimals whose mint authority is `authority`. */
export function createMint(svm: LiteSVM, payer: TestKey, mint: TestKey, authority: Address, decimals: number): Address {
  const space = BigInt(getMintSize());
  sendInstructions(
    svm,
    payer,
    [
      getCreateAccountInstruction({
        payer: createNoopSigner(payer.address),
        newAccount: createNoopSigner(mint.address),
        lamports: svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: authority }),
    ],
    [mint],
  );
  return mint.address;
}

export async function associatedTokenAccount(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

/** Creates `owner`'s associated token account of `mint` (paid by `payer`) and answers its address. */
export async function createTokenAccount(svm: LiteSVM, payer: TestKey, owner: Address, mint: Address): Promise<Address> {
  const ata = await associatedTokenAccount(owner, mint);
  sendInstructions(svm, payer, [getCreateAssociatedTokenIdempotentInstruction({ payer: createNoopSigner(payer.address), ata, owner, mint })]);
  return ata;
}

/** Mints `amount` base units to `account`, signed by the mint authority. */
export function mintTo(svm: LiteSVM, authority: TestKey, mint: Address, account: Address, amount: bigint, decimals: number): void {
  sendInstructions(svm, authority, [getMintToCheckedInstruction({ mint, token: account, mintAuthority: createNoopSigner(authority.address), amount, decimals })]);
}

/** A token account's balance in base units (0 when it does not exist). */
export function tokenBalance(svm: LiteSVM, account: Address): bigint {
  const found = svm.getAccount(account);
  return found.exists ? getTokenDecoder().decode(found.data).amount : 0n;
}

/** A mint's supply in base units. */
export function mintSupply(svm: LiteSVM, mint: Address): bigint {
  const found = svm.getAccount(mint);
  if (!found.exists) throw new Error(`no mint at ${mint}`);
  // The supply is the u64 after the 36-byte optional mint authority.
  return Buffer.from(found.data).readBigUInt64LE(36);
}

/** Creates a durable nonce account whose authority is `authority`; the blockhash is then moved on so it can advance. */
export function createNonceAccount(svm: LiteSVM, payer: TestKey, account: TestKey, authority: Address): Address {
  const space = BigInt(getNonceSize());
  sendInstructions(
    svm,
    payer,
    [
      getCreateAccountInstruction({
        payer: createNoopSigner(payer.address),
        newAccount: createNoopSigner(account.address),
        lamports: svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: SYSTEM_PROGRAM_ADDRESS,
      }),
      getInitializeNonceAccountInstruction({ nonceAccount: account.address, nonceAuthority: authority }),
    ],
    [account],
  );
  svm.expireBlockhash();
  return account.address;
}

/** The nonce value a durable nonce account holds now. */
export function nonceValue(svm: LiteSVM, account: Address): string {
  const found = svm.getAccount(account);
  if (!found.exists) throw new Error(`no nonce account at ${account}`);
  return getNonceDecoder().decode(found.data).blockhash;
}

/** A fresh ledger with the standard programs. */
export function newLedger(): LiteSVM {
  return new LiteSVM();
}

/**
 * The product's view of the in-process ledger (what the JSON-RPC implementation answers for a cluster). Each
 * landed transaction closes its slot: the blockhash moves on, as a cluster's does between slots, so a nonce can be
 * advanced again.
 */
export function svmNonceLedger(svm: LiteSVM): SolanaNonceLedger & { sent: number } {
  const ledger = {
    sent: 0,
    async readNonce(account: Address) {
      const found = svm.getAccount(account);
      return found.exists ? decodeNonceValue(Uint8Array.from(found.data)) : undefined;
    },
    async latestBlockhash() {
      return { blockhash: svm.latestBlockhash(), lastValidBlockHeight: svm.getClock().slot + 150n };
    },
    async sendTransaction(wire: string) {
      ledger.sent += 1;
      const error = send(svm, getTransactionDecoder().decode(base64ToBytes(wire)));
      if (error !== null) throw new Error(`transaction refused: ${error}`);
      svm.expireBlockhash();
    },
  };
  return ledger;
}
