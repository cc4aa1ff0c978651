/**
 * The Solana attestation as a transaction the issuer has already signed: no program of ours runs on Solana, so the
 * attestation is one transaction, fee payer the user, that does the whole trade with the standard programs and can
 * land only until its durable nonce is advanced.
 *
 * A buy:  AdvanceNonceAccount (issuer: nonce authority) → CreateAssociatedTokenIdempotent (the user's stock account,
 *         paid by the user) → TransferChecked of the price in the stablecoin, user → treasury (signed by the user) →
 *         MintToChecked of the stock token to the user's account (signed by the issuer: mint authority) → Memo.
 * A sell: AdvanceNonceAccount → CreateAssociatedTokenIdempotent (the user's stablecoin account, paid by the user) →
 *         BurnChecked of the stock token (signed by the user) → TransferChecked of the price, treasury → user
 *         (signed by the issuer: the treasury's owner) → Memo.
 * The Checked forms of mint and burn are MintTo and Burn that also check the mint's decimals, so an amount built for
 * other decimals fails on chain instead of moving a thousand times too much. Tokens are classic SPL Token accounts.
 *
 * The issuer signs the message; the attestation's `signature` is that ed25519 signature (base64) and its
 * `additionalData` the partially signed wire transaction (base64) the user signs and sends. Building is pure (no
 * ledger is read): everything the message holds comes from the caller, so a verifier rebuilds it from the attestation.
 */
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingDurableNonce,
  type Address,
  type Instruction,
  type Nonce,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getBurnCheckedInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { Decimal, Rounding, toScaledInteger } from '../domain/money';
import { bytesToBase64 } from './base64';
import { InvalidQuoteError, QUOTE_DECIMALS, QUOTE_SIDE, type QuoteSide } from './quote';

/** The SPL Memo program (v2), deployed on every cluster; its instruction data is the memo's UTF-8 text. */
export const SPL_MEMO_PROGRAM_ADDRESS = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** The memo of an attestation's transaction: how the ledger's history names the attestation. */
export function solanaAttestationMemo(attestationId: bigint): string {
  return `attestation:${attestationId}`;
}

/** The mints and accounts of the issuer on the ledger, fixed for every attestation. */
export interface SolanaIssuerAccounts {
  /** The issuer's key: nonce authority of the pool, mint authority of the stock mints, owner of the treasury. */
  issuer: Address;
  stablecoinMint: Address;
  stablecoinDecimals: number;
  /** The issuer's stablecoin token account, which buys pay into and sells are paid from. */
  treasury: Address;
}

/** One attestation's transaction, as the quote and the nonce held for it describe it. */
export interface SolanaAttestationTransactionInput extends SolanaIssuerAccounts {
  attestationId: bigint;
  side: QuoteSide;
  /** The wallet the transaction is built for: fee payer, payer of the stablecoin or holder of the tokens. */
  user: Address;
  stockMint: Address;
  stockDecimals: number;
  /** Price per token in the stablecoin, scaled by 10^18 (the quote's). */
  price: bigint;
  /** Token quantity, scaled by 10^18 (the quote's). */
  quantity: bigint;
  /** The durable nonce account held for this attestation, and the nonce value it holds. */
  nonceAccount: Address;
  nonce: string;
}

/** What the transaction moves, in each mint's base units. */
export interface SolanaAttestationAmounts {
  /** Stock tokens minted (buy) or burned (sell). */
  tokens: bigint;
  /** Stablecoin paid in (buy) or out (sell). */
  stablecoin: bigint;
}

const SCALE = new Decimal(10).pow(QUOTE_DECIMALS);

/**
 * The quote's amounts in each mint's decimals, rounded in the issuer's favour: a buy mints the quantity rounded down
 * and is paid price × quantity rounded up; a sell burns the quantity rounded up and pays price × quantity rounded
 * down. The notional is taken on the quoted quantity, exactly (decimal.js at 100 digits holds 2^128 × 2^128). A trade
 * that rounds to nothing on either side is refused, never signed.
 */
export function solanaAttestationAmounts(input: {
  side: QuoteSide;
  price: bigint;
  quantity: bigint;
  stockDecimals: number;
  stablecoinDecimals: number;
}): SolanaAttestationAmounts {
  const buy = input.side === QUOTE_SIDE.buy;
  const quantity = new Decimal(input.quantity.toString()).div(SCALE);
  const notional = new Decimal(input.price.toString()).div(SCALE).times(quantity);
  const tokens = toScaledInteger(quantity, input.stockDecimals, buy ? Rounding.DOWN : Rounding.UP);
  const stablecoin = toScaledInteger(notional, input.stablecoinDecimals, buy ? Rounding.UP : Rounding.DOWN);
  if (tokens <= 0n) throw new InvalidQuoteError('quantity', `is less than one base unit of a mint of ${input.stockDecimals} decimals`);
  if (stablecoin <= 0n) throw new InvalidQuoteError('price', `price × quantity is less than one base unit of the stablecoin (${input.stablecoinDecimals} decimals)`);
  return { tokens, stablecoin };
}

/** Associated token accounts derived already, by owner and mint: a derivation costs about a millisecond and a half. */
const associatedAccounts = new Map<string, Address>();
const ASSOCIATED_ACCOUNTS_KEPT = 50_000;

async function associatedTokenAccount(owner: Address, mint: Address): Promise<Address> {
  const key = `${owner}:${mint}`;
  const known = associatedAccounts.get(key);
  if (known) return known;
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  // The oldest entry makes room: Maps iterate in insertion order.
  if (associatedAccounts.size >= ASSOCIATED_ACCOUNTS_KEPT) associatedAccounts.delete(associatedAccounts.keys().next().value!);
  associatedAccounts.set(key, ata);
  return ata;
}

/** The instructions after the advance-nonce one, in order. */
async function tradeInstructions(input: SolanaAttestationTransactionInput, amounts: SolanaAttestationAmounts): Promise<Instruction[]> {
  const user = createNoopSigner(input.user);
  const issuer = createNoopSigner(input.issuer);
  const memo: Instruction = { programAddress: SPL_MEMO_PROGRAM_ADDRESS, data: new TextEncoder().encode(solanaAttestationMemo(input.attestationId)) };
  const userStock = await associatedTokenAccount(input.user, input.stockMint);
  const userStablecoin = await associatedTokenAccount(input.user, input.stablecoinMint);
  if (input.side === QUOTE_SIDE.buy) {
    return [
      getCreateAssociatedTokenIdempotentInstruction({ payer: user, ata: userStock, owner: input.user, mint: input.stockMint }),
      getTransferCheckedInstruction({
        source: userStablecoin,
        mint: input.stablecoinMint,
        destination: input.treasury,
        authority: user,
        amount: amounts.stablecoin,
        decimals: input.stablecoinDecimals,
      }),
      getMintToCheckedInstruction({ mint: input.stockMint, token: userStock, mintAuthority: issuer, amount: amounts.tokens, decimals: input.stockDecimals }),
      memo,
    ];
  }
  return [
    getCreateAssociatedTokenIdempotentInstruction({ payer: user, ata: userStablecoin, owner: input.user, mint: input.stablecoinMint }),
    getBurnCheckedInstruction({ account: userStock, mint: input.stockMint, authority: user, amount: amounts.tokens, decimals: input.stockDecimals }),
    getTransferCheckedInstruction({
      source: input.treasury,
      mint: input.stablecoinMint,
      destination: userStablecoin,
      authority: issuer,
      amount: amounts.stablecoin,
      decimals: input.stablecoinDecimals,
    }),
    memo,
  ];
}

/** The attestation's transaction, compiled and signed by nobody yet (the user's and the issuer's slots empty). */
export async function compileSolanaAttestationTransaction(input: SolanaAttestationTransactionInput): Promise<Transaction> {
  const instructions = await tradeInstructions(input, solanaAttestationAmounts(input));
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (draft) => setTransactionMessageFeePayer(input.user, draft),
    (draft) =>
      setTransactionMessageLifetimeUsingDurableNonce(
        { nonce: input.nonce as Nonce, nonceAccountAddress: input.nonceAccount, nonceAuthorityAddress: input.issuer },
        draft,
      ),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  return compileTransaction(message);
}

/** Signs a message with the issuer's ed25519 key (64-byte signature). */
export type SignSolanaMessage = (message: Uint8Array) => Uint8Array;

/** The Solana fields of an attestation's answer, and the amounts its transaction moves. */
export interface SignedSolanaAttestation {
  /** The issuer's ed25519 signature over the transaction message (base64). */
  signature: string;
  /** The wire transaction with the issuer's signature and the user's slot empty (base64). */
  additionalData: string;
  amounts: SolanaAttestationAmounts;
}

/** Builds the attestation's transaction and signs it as the issuer: what the user completes and sends. */
export async function signSolanaAttestationTransaction(
  input: SolanaAttestationTransactionInput,
  sign: SignSolanaMessage,
): Promise<SignedSolanaAttestation> {
  const unsigned = await compileSolanaAttestationTransaction(input);
  const signature = sign(Uint8Array.from(unsigned.messageBytes)) as SignatureBytes;
  const transaction: Transaction = { ...unsigned, signatures: { ...unsigned.signatures, [input.issuer]: signature } };
  return {
    signature: bytesToBase64(signature),
    additionalData: getBase64EncodedWireTransaction(transaction),
    amounts: solanaAttestationAmounts(input),
  };
}
