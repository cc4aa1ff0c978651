/** Wire transactions as the ledger reads them: the transaction and its compiled message, and its durable nonce. */
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { SYSTEM_PROGRAM } from './accounts';

const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();

export function decodeWireTransaction(bytes: Uint8Array) {
  const transaction = transactionDecoder.decode(bytes);
  const message = messageDecoder.decode(transaction.messageBytes);
  return { transaction, message };
}

export type WireMessage = ReturnType<typeof decodeWireTransaction>['message'];

/** The nonce account a durable-nonce transaction advances (its first instruction: the system program's AdvanceNonceAccount). */
export function advancedNonceAccount(message: WireMessage): string | undefined {
  const first = 'instructions' in message ? message.instructions[0] : undefined;
  if (!first || message.staticAccounts[first.programAddressIndex] !== SYSTEM_PROGRAM) return undefined;
  if (!first.data || first.data.length < 4 || Buffer.from(first.data).readUInt32LE(0) !== 4) return undefined;
  return message.staticAccounts[first.accountIndices?.[0] ?? -1];
}
