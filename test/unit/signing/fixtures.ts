/** Shared quotes and keys for the signing tests. */
import { Keypair } from '@solana/web3.js';
import { type Hex } from 'viem';
import { type Quote } from '../../../signing';

export const EVM_PRIVATE_KEY: Hex = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
export const TOKEN_MANAGER_ETH = '0x1111111111111111111111111111111111111111';
export const TOKEN_MANAGER_BSC = '0x2222222222222222222222222222222222222222';

export const USER_ID: Hex = `0x${'ab'.repeat(31)}01`;
export const ADDITIONAL_DATA: Hex = `0x${'00'.repeat(31)}07`;

/** An Ethereum quote: 12.5 tokens at 187.25 USD, buy. */
export function evmQuote(overrides: Partial<Quote> = {}): Quote {
  return {
    chainId: 1n,
    attestationId: 0x0123456789abcdef0123456789abcdefn,
    userId: USER_ID,
    asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    price: 187_250_000_000_000_000_000n,
    quantity: 12_500_000_000_000_000_000n,
    expiration: 1_790_000_000n,
    side: 0,
    additionalData: ADDITIONAL_DATA,
    ...overrides,
  };
}

/** A deterministic Solana key pair (seed 1, 2, …, 32). */
export const SOLANA_KEYPAIR = Keypair.fromSeed(Uint8Array.from({ length: 32 }, (_, i) => i + 1));

/** One changed value per field, each still a valid quote field. */
export const TAMPERED_FIELDS: ReadonlyArray<[keyof Quote, (quote: Quote) => Partial<Quote>]> = [
  ['attestationId', (q) => ({ attestationId: q.attestationId + 1n })],
  ['userId', () => ({ userId: `0x${'ab'.repeat(31)}02` })],
  ['price', (q) => ({ price: q.price + 1n })],
  ['quantity', (q) => ({ quantity: q.quantity - 1n })],
  ['expiration', (q) => ({ expiration: q.expiration + 1n })],
  ['side', (q) => ({ side: q.side === 0 ? 1 : 0 })],
  ['additionalData', () => ({ additionalData: `0x${'00'.repeat(31)}08` })],
];
