/**
 * GET /v1/status/chains — each chain the product issues on, and whether an operator paused it. While a chain is paused
 * its attestations and soft quotes are refused with 400 PAUSED_GM_CHAIN; reads go on, and the chain watcher keeps
 * recording what happens on it (attestations issued before the pause still execute).
 */
import { z } from 'zod';
import { listChainPauses, type ChainPauseRecord } from '../../../db/queries/chain-pauses';
import { CHAINS, type Chain } from '../../../domain/chains';
import { component } from '../../contract/components';
import { defineOperation } from '../../contract/operation';
import { respondCached } from '../respond';

export const chainStatusSchema = component(
  'ChainStatus',
  z.object({
    chainId: z.enum(CHAINS),
    paused: z.boolean().describe('Whether an operator paused the chain: attestations and soft quotes on it are refused with `PAUSED_GM_CHAIN`.'),
    reason: z.string().nullable().describe('Why, as the operator gave it; null while not paused.'),
    pausedAt: z.iso.datetime().nullable().describe('Since when (ISO-8601, UTC); null while not paused.'),
  }),
);
export type ChainStatus = z.infer<typeof chainStatusSchema>;

export const chainStatusListSchema = component('ChainStatusList', z.object({ chains: z.array(chainStatusSchema).describe("In the chain table's order.") }));
export type ChainStatusList = z.infer<typeof chainStatusListSchema>;

export function chainStatusView(chain: Chain, pause: ChainPauseRecord | undefined): ChainStatus {
  return { chainId: chain, paused: pause !== undefined, reason: pause?.reason ?? null, pausedAt: pause?.pausedAt.toISOString() ?? null };
}

export const chainStatusesOperation = defineOperation({
  method: 'get',
  path: '/v1/status/chains',
  operationId: 'getChainStatuses',
  summary: 'Chain statuses',
  description:
    'Each chain and whether an operator paused it. A paused chain refuses attestations and soft quotes (`PAUSED_GM_CHAIN`); reads go on, and attestations issued before the pause still execute and are recorded.',
  access: 'read',
  answers: { 200: { description: 'Every chain.', schema: chainStatusListSchema } },
  errors: [],
  handler: (services) => async (ctx) => {
    await respondCached(ctx, services, { tag: 'status', key: 'chains', ttlMs: 1_000 }, async (): Promise<ChainStatusList> => {
      const pauses = new Map((await listChainPauses(services.db)).map((pause) => [pause.chain, pause]));
      return { chains: CHAINS.map((chain) => chainStatusView(chain, pauses.get(chain))) };
    });
  },
});
