/**
 * Account layouts the ledger reads for its answers: SPL Token (and Token-2022) mints and token accounts, and the
 * system program's durable nonce accounts. Offsets are the programs' own (spl-token `state.rs`, solana `nonce`).
 */
import { getBase58Decoder } from '@solana/kit';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const MINT_SIZE = 82;
const TOKEN_ACCOUNT_SIZE = 165;

/** An account as the ledger keeps it: what litesvm answers, in a form that is stored as JSON. */
export interface StoredAccount {
  lamports: string;
  owner: string;
  /** base64 */
  data: string;
  executable: boolean;
}

const base58 = getBase58Decoder();
const addressAt = (data: Buffer, offset: number): string => base58.decode(data.subarray(offset, offset + 32));
const optionalAddressAt = (data: Buffer, offset: number): string | null => (data.readUInt32LE(offset) === 1 ? addressAt(data, offset + 4) : null);

export const isTokenProgram = (owner: string): boolean => owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;

export interface TokenAccountState {
  mint: string;
  owner: string;
  amount: bigint;
  state: 'uninitialized' | 'initialized' | 'frozen';
}

/** The token account in `account`, or undefined when it is not an initialized token account. */
export function parseTokenAccount(account: StoredAccount | undefined): TokenAccountState | undefined {
  if (!account || !isTokenProgram(account.owner)) return undefined;
  const data = Buffer.from(account.data, 'base64');
  if (data.length < TOKEN_ACCOUNT_SIZE || (data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] !== 2)) return undefined;
  const state = (['uninitialized', 'initialized', 'frozen'] as const)[data[108]!];
  if (!state || state === 'uninitialized') return undefined;
  return { mint: addressAt(data, 0), owner: addressAt(data, 32), amount: data.readBigUInt64LE(64), state };
}

export interface MintState {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  freezeAuthority: string | null;
}

/** The mint in `account`, or undefined when it is not an initialized mint. */
export function parseMint(account: StoredAccount | undefined): MintState | undefined {
  if (!account || !isTokenProgram(account.owner)) return undefined;
  const data = Buffer.from(account.data, 'base64');
  const isMint = data.length === MINT_SIZE || (data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] === 1);
  if (!isMint || data[45] !== 1) return undefined;
  return { mintAuthority: optionalAddressAt(data, 0), supply: data.readBigUInt64LE(36), decimals: data[44]!, freezeAuthority: optionalAddressAt(data, 46) };
}

/** The durable nonce a nonce account holds (what a transaction using it carries as its blockhash), if initialized. */
export function durableNonce(account: StoredAccount | undefined): string | undefined {
  if (!account || account.owner !== SYSTEM_PROGRAM) return undefined;
  const data = Buffer.from(account.data, 'base64');
  if (data.length < 80 || data.readUInt32LE(4) !== 1) return undefined;
  return addressAt(data, 40);
}

/** The authority of an initialized nonce account. */
export function nonceAuthority(account: StoredAccount | undefined): string | undefined {
  if (durableNonce(account) === undefined) return undefined;
  return addressAt(Buffer.from(account!.data, 'base64'), 8);
}

/** A token amount as the RPC answers it (`uiTokenAmount`). */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  const uiAmountString = fraction ? `${whole}.${fraction}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}
