/**
 * The campaign's operations and their draws: what each actor (users, the partner, the operator) may do, by weight, and
 * every value of an operation drawn from the actor's stream and nothing else, so a seed gives the same sequence of
 * operations whatever the product answered (campaign/workload.ts carries them out).
 */
import { EVM_CHAINS, type CHAIN_TABLE, type EvmChain } from '../domain/chains';
import type { Random } from './random';

export const CHAINS = ['ethereum-1', 'bsc-56', 'solana-900'] as const satisfies readonly (keyof typeof CHAIN_TABLE)[];
/** Assets attested: two that trade at any hour (so every run trades), two that trade only in the sessions. */
export const ATTESTED_SYMBOLS = ['SPYon', 'QQQon', 'AAPLon', 'TSLAon'] as const;
/** Underlyings the sandbox's participant holds shares of. */
export const PARTNER_UNDERLYINGS = ['AAPL', 'NVDA', 'TSLA', 'MSFT', 'AMZN'] as const;

export type Role = 'user' | 'partner' | 'operator';

/** What a submission on chain does with an attestation. */
export type Fate = 'submit' | 'twice' | 'late' | 'never';

export type Operation =
  | { kind: 'attest'; chain: (typeof CHAINS)[number]; symbol: string; side: 'buy' | 'sell'; amount: { tokenAmount: string } | { notionalValue: string }; duration: 'short' | 'long'; fate: Fate }
  | { kind: 'soft-quote'; symbol: string; side: 'buy' | 'sell'; notionalValue: string }
  | { kind: 'read-attestations' }
  | { kind: 'partner-mint'; underlying: string; qty: string; network: 'ethereum' | 'binance'; wallet: number }
  | { kind: 'partner-read' }
  | { kind: 'partner-burn'; chain: EvmChain; fraction: number; wallet: number }
  | { kind: 'pause-market'; holdMs: number }
  | { kind: 'pause-asset'; symbol: string; holdMs: number }
  | { kind: 'pause-chain'; chain: (typeof CHAINS)[number]; holdMs: number }
  | { kind: 'corporate-action'; symbol: string; ratio: string; deleteIt: boolean }
  | { kind: 'review' };

const WEIGHTS = {
  user: { attest: 8, 'soft-quote': 1, 'read-attestations': 1 },
  partner: { 'partner-mint': 3, 'partner-read': 2, 'partner-burn': 2 },
  operator: { 'pause-market': 1, 'pause-asset': 2, 'pause-chain': 2, 'corporate-action': 1, review: 2 },
} as const;

const decimal = (random: Random, min: number, max: number, places: number): string => (random.int(min * 10 ** places, max * 10 ** places) / 10 ** places).toFixed(places);

/** The next operation of an actor: every value drawn from `random` and nothing else, the same draws whatever happened. */
export function drawOperation(random: Random, role: Role, wallets = 3): Operation {
  const kind = random.weighted<string>(WEIGHTS[role]);
  switch (kind) {
    case 'attest': {
      const byToken = random.chance(0.6);
      return {
        kind,
        chain: random.pick(CHAINS),
        symbol: random.pick(ATTESTED_SYMBOLS),
        side: random.weighted({ buy: 3, sell: 2 }),
        amount: byToken ? { tokenAmount: decimal(random, 0.01, 0.5, 3) } : { notionalValue: decimal(random, 5, 150, 2) },
        duration: random.weighted({ short: 3, long: 1 }),
        fate: random.weighted<Fate>({ submit: 5, twice: 1, late: 1, never: 2 }),
      };
    }
    case 'soft-quote':
      return { kind, symbol: random.pick(ATTESTED_SYMBOLS), side: random.weighted({ buy: 1, sell: 1 }), notionalValue: decimal(random, 5, 500, 2) };
    case 'partner-mint':
      return { kind, underlying: random.pick(PARTNER_UNDERLYINGS), qty: decimal(random, 0.1, 2, 1), network: random.pick(['ethereum', 'binance'] as const), wallet: random.int(0, wallets - 1) };
    case 'partner-burn':
      return { kind, chain: random.pick(EVM_CHAINS), fraction: random.int(1, 4) / 4, wallet: random.int(0, wallets - 1) };
    case 'pause-market':
      return { kind, holdMs: random.int(1_000, 4_000) };
    case 'pause-asset':
      return { kind, symbol: random.pick(ATTESTED_SYMBOLS), holdMs: random.int(1_000, 6_000) };
    case 'pause-chain':
      return { kind, chain: random.pick(CHAINS), holdMs: random.int(1_000, 6_000) };
    case 'corporate-action':
      return { kind, symbol: random.pick(ATTESTED_SYMBOLS), ratio: random.pick(['2', '3', '0.5']), deleteIt: random.chance(0.5) };
    default:
      return { kind: kind as 'read-attestations' | 'partner-read' | 'review' };
  }
}

/** The first `count` operations an actor draws from its stream, with the pauses between them (what a seed replays). */
export function drawOperations(random: Random, role: Role, count: number, meanGapMs = 1_000): { operation: Operation; gapMs: number }[] {
  return Array.from({ length: count }, () => ({ gapMs: drawGap(random, meanGapMs), operation: drawOperation(random, role) }));
}

/** A pause before the next operation: uniform in [0, 2 × mean], so the actor's rate is 1/mean on average. */
export function drawGap(random: Random, meanMs: number): number {
  return Math.round(random.next() * 2 * meanMs);
}

