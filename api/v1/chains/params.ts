/** The parameters the chains resource's operations share: the chain, a token or wallet address, and how each fails. */
import { z } from 'zod';
import { chainIdSchema } from '../../../domain/chain-id';
import { CHAINS, type Chain } from '../../../domain/chains';
import type { ErrorCode } from '../../../domain/error-codes';
import { ApiError } from '../../../domain/errors';
import type { ApiServices } from '../../services';
import type { ChainContext } from '../../../chains/context';

export const chainParam = chainIdSchema(`chainId must be one of ${CHAINS.join(', ')}`).describe(
  "The chain: `ethereum-1`, `bsc-56` or `solana-900` (Solana's genesis hash `5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d` names it too).",
);

/** A 0x-prefixed 20-byte hex address in any case, parsed to lower case. */
export const evmAddress = z
  .string()
  .max(42)
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
  .transform((address) => address.toLowerCase() as `0x${string}`);

export const CHAIN_PARAM_CODES: Partial<Record<string, ErrorCode>> = { chainId: 'INVALID_GM_CHAIN' };

/** The chain's read client, or 503 CHAIN_UNAVAILABLE for a chain this process does not reach (Solana's token reads are not served here). */
export function chainContextOf(services: ApiServices, chain: Chain): ChainContext {
  const context = chain in services.chains ? services.chains[chain as keyof typeof services.chains] : undefined;
  if (!context) throw new ApiError('CHAIN_UNAVAILABLE', `${chain} is not reachable from this service`);
  return context;
}
