/**
 * POST /v1/status/chains/{chainId}/pause and /resume (admin) — an operator pauses a chain (no attestation or soft quote
 * on it: 400 PAUSED_GM_CHAIN) and resumes it. Both are idempotent: pausing a paused chain replaces the reason and
 * keeps when it was paused; resuming a running chain changes nothing.
 */
import { z } from 'zod';
import { pauseChain, resumeChain } from '../../../db/queries/chain-pauses';
import { defineOperation } from '../../contract/operation';
import { CHAIN_PARAM_CODES, chainParam } from '../chains/params';
import { chainStatusSchema, chainStatusView, type ChainStatus } from './chain-statuses';

const chainParams = z.object({ chainId: chainParam });
const pauseBody = z.strictObject({ reason: z.string().trim().min(1).max(500).describe('Why, as operators and clients will read it.') });

export const pauseChainOperation = defineOperation({
  method: 'post',
  path: '/v1/status/chains/{chainId}/pause',
  operationId: 'pauseChain',
  summary: 'Pause a chain',
  description:
    'Attestations and soft quotes on the chain are refused with `PAUSED_GM_CHAIN` until it is resumed. Reads go on, and the chain watcher keeps recording the chain: attestations issued before the pause still execute. Pausing a paused chain replaces the reason.',
  access: 'admin',
  params: chainParams,
  body: pauseBody,
  fieldCodes: CHAIN_PARAM_CODES,
  answers: { 200: { description: 'The chain, now paused.', schema: chainStatusSchema } },
  errors: [],
  handler: (services) => async (ctx, { params: { chainId }, body: { reason } }) => {
    const pause = await pauseChain(services.db, chainId, reason);
    await services.changed('status');
    ctx.body = chainStatusView(chainId, pause) satisfies ChainStatus;
  },
});

export const resumeChainOperation = defineOperation({
  method: 'post',
  path: '/v1/status/chains/{chainId}/resume',
  operationId: 'resumeChain',
  summary: 'Resume a chain',
  description: "Ends the chain's pause; resuming a running chain changes nothing.",
  access: 'admin',
  params: chainParams,
  fieldCodes: CHAIN_PARAM_CODES,
  answers: { 200: { description: 'The chain, running.', schema: chainStatusSchema } },
  errors: [],
  handler: (services) => async (ctx, { params: { chainId } }) => {
    await resumeChain(services.db, chainId);
    await services.changed('status');
    ctx.body = chainStatusView(chainId, undefined) satisfies ChainStatus;
  },
});
