/**
 * Verifying a Solana attestation offline, as its recipient would: the wire transaction in `additionalData` carries
 * the issuer's ed25519 signature over its message, that signature is the attestation's `signature`, and the message
 * is exactly the one the attestation describes — rebuilt from the attestation's fields (mint, side, quantity, price,
 * id in the memo) with the issuer's accounts, the user it names as fee payer and the nonce it holds, then compared
 * byte for byte. Nothing is read from a ledger.
 */
import { ed25519 } from '@noble/curves/ed25519';
import {
  getAddressEncoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type CompiledTransactionMessage,
} from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { base64ToBytes } from './base64';
import type { QuoteSide } from './quote';
import { compileSolanaAttestationTransaction, type SolanaIssuerAccounts } from './solana-transaction';

/** The attestation's fields the check reads, as the API answers them. */
export interface SolanaAttestationFields {
  attestationId: string;
  assetAddress: string;
  side: string;
  tokenAmount: string;
  price: string;
  signature: string;
  additionalData: string;
}

/** What the verifier knows independently of the attestation. */
export interface SolanaVerificationContext extends SolanaIssuerAccounts {
  stockDecimals: number;
  /** The wallet the attestation was asked for; when given, the transaction must be built for it. */
  userAddress?: string;
}

export interface SolanaTransactionVerification {
  valid: boolean;
  /** Why it is not valid, when it is not. */
  problem?: string;
  /** The wallet the transaction is built for (its fee payer), the nonce account and nonce value it holds. */
  user?: Address;
  nonceAccount?: Address;
  nonce?: string;
}

/** The compiled form the attestation's transaction takes: a legacy message (no lookup tables). */
type LegacyMessage = Extract<CompiledTransactionMessage, { version: 'legacy' }> & { lifetimeToken?: string };

const INSTRUCTION_NAMES = { buy: ['AdvanceNonceAccount', 'CreateAssociatedTokenIdempotent', 'TransferChecked', 'MintToChecked', 'Memo'], sell: ['AdvanceNonceAccount', 'CreateAssociatedTokenIdempotent', 'BurnChecked', 'TransferChecked', 'Memo'] };

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

/** An instruction of a compiled message with its program and accounts resolved, for comparing two messages. */
function resolvedInstructions(message: LegacyMessage): string[] {
  return message.instructions.map((instruction) =>
    JSON.stringify({
      program: message.staticAccounts[instruction.programAddressIndex],
      accounts: (instruction.accountIndices ?? []).map((index) => message.staticAccounts[index]),
      data: Buffer.from(instruction.data ?? new Uint8Array()).toString('hex'),
    }),
  );
}

/** Where the transaction departs from the attestation's: the first differing instruction, or the header. */
function difference(actual: LegacyMessage, expected: LegacyMessage, side: 'buy' | 'sell'): string {
  const mine = resolvedInstructions(actual);
  const theirs = resolvedInstructions(expected);
  const index = theirs.findIndex((instruction, position) => mine[position] !== instruction);
  if (index >= 0) return `instruction ${index} (${INSTRUCTION_NAMES[side][index] ?? 'unknown'}) is not the attestation's`;
  if (mine.length !== theirs.length) return `it has ${mine.length} instructions where the attestation's has ${theirs.length}`;
  return 'its accounts or header are not the attestation\'s';
}

function invalid(problem: string, found: Omit<SolanaTransactionVerification, 'valid' | 'problem'> = {}): SolanaTransactionVerification {
  return { valid: false, problem, ...found };
}

/** Checks a Solana attestation's transaction and the issuer's signature on it; never throws for a bad attestation. */
export async function verifySolanaAttestationTransaction(
  attestation: SolanaAttestationFields,
  context: SolanaVerificationContext,
): Promise<SolanaTransactionVerification> {
  let messageBytes: Uint8Array;
  let message: LegacyMessage;
  let issuerSignature: Uint8Array | null | undefined;
  try {
    const transaction = getTransactionDecoder().decode(base64ToBytes(attestation.additionalData));
    messageBytes = Uint8Array.from(transaction.messageBytes);
    const decoded = getCompiledTransactionMessageDecoder().decode(messageBytes);
    if (decoded.version !== 'legacy') return invalid(`the transaction message is version ${decoded.version}, not the legacy message the issuer signs`);
    message = decoded;
    issuerSignature = transaction.signatures[context.issuer];
  } catch (error) {
    return invalid(`additionalData is not a Solana wire transaction (${error instanceof Error ? error.message : String(error)})`);
  }
  const user = message.staticAccounts[0];
  const advance = message.instructions[0];
  const nonceAccount = advance?.accountIndices?.[0] === undefined ? undefined : message.staticAccounts[advance.accountIndices[0]];
  const nonce = message.lifetimeToken;
  const found = { user, nonceAccount, nonce };
  if (!advance || message.staticAccounts[advance.programAddressIndex] !== SYSTEM_PROGRAM_ADDRESS || !nonceAccount || !nonce) {
    return invalid('the transaction does not start by advancing a durable nonce', found);
  }

  let signature: Uint8Array;
  try {
    signature = base64ToBytes(attestation.signature);
  } catch {
    return invalid('signature is not base64', found);
  }
  if (!issuerSignature || !equalBytes(issuerSignature, signature)) {
    return invalid(`the transaction does not carry this signature for the issuer ${context.issuer}`, found);
  }
  const issuerKey = Uint8Array.from(getAddressEncoder().encode(context.issuer));
  let signed = false;
  try {
    signed = ed25519.verify(signature, messageBytes, issuerKey, { zip215: false });
  } catch {
    signed = false;
  }
  if (!signed) return invalid('the issuer\'s ed25519 signature does not verify over the transaction message', found);

  if (context.userAddress !== undefined && context.userAddress !== user) {
    return invalid(`the transaction is built for ${user}, not for ${context.userAddress}`, found);
  }
  const side = attestation.side === '0' ? 'buy' : attestation.side === '1' ? 'sell' : undefined;
  if (!side || !user) return invalid(`side ${attestation.side} is neither 0 nor 1`, found);
  let expected: Uint8Array;
  try {
    const rebuilt = await compileSolanaAttestationTransaction({
      ...context,
      attestationId: BigInt(attestation.attestationId),
      side: Number(attestation.side) as QuoteSide,
      user,
      stockMint: attestation.assetAddress as Address,
      price: BigInt(attestation.price),
      quantity: BigInt(attestation.tokenAmount),
      nonceAccount,
      nonce,
    });
    expected = Uint8Array.from(rebuilt.messageBytes);
  } catch (error) {
    return invalid(`the attestation's fields do not make a transaction (${error instanceof Error ? error.message : String(error)})`, found);
  }
  if (!equalBytes(expected, messageBytes)) {
    return invalid(`the transaction is not the attestation's: ${difference(message, getCompiledTransactionMessageDecoder().decode(expected) as LegacyMessage, side)}`, found);
  }
  return { valid: true, ...found };
}
