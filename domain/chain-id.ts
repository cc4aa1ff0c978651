/**
 * A chain as a request names it: any spelling the reference issuer documents for it (the named id `solana-900` or
 * Solana's genesis hash, as its documentation pages have it), parsed to the named id every other part uses.
 */
import { z } from 'zod';
import { CHAIN_SPELLINGS, chainNamed, type Chain } from './chains';

const SPELLINGS = [...CHAIN_SPELLINGS.keys()] as [string, ...string[]];

/** A `chainId` field: one of the spellings, parsed to the chain's named id. */
export function chainIdSchema(error: string) {
  return z.enum(SPELLINGS, { error }).transform((spelling): Chain => chainNamed(spelling)!);
}
