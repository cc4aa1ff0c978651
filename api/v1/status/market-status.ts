/**
 * GET /v1/status/market — the conventional session running, `paused` (a transition between sessions, or an
 * operator's market-wide pause) or `closed`, with the off-hours window beside it, as the reference issuer answers it.
 */
import { getMarketState } from '../../../db/queries/operator-controls';
import { documentationUrl } from '../../../domain/errors';
import { type MarketStatus, marketStatus } from '../../../domain/market-status';
import { defineOperation } from '../../contract/operation';
import { respondCached } from '../respond';
import { marketStatusSchema, type MarketStatusAnswer } from './schemas';

const iso = (t: number): string => new Date(t).toISOString();

/** A market status as the reference issuer answers it: ISO-8601 UTC times, the reason with its documentation. */
export function marketStatusView(status: MarketStatus, baseUrl: string): MarketStatusAnswer {
  return {
    timestamp: iso(status.timestamp),
    isOpen: status.isOpen,
    marketStatus: status.marketStatus,
    nextOpenSession: status.nextOpenSession,
    nextOpen: iso(status.nextOpen),
    nextClose: iso(status.nextClose),
    offhours: { isOpen: status.offhours.isOpen, nextOpen: iso(status.offhours.nextOpen), nextClose: iso(status.offhours.nextClose) },
    reason: status.reason === null ? null : { ...status.reason, documentation: documentationUrl(baseUrl, status.reason.code) },
  };
}

export const marketStatusOperation = defineOperation({
  method: 'get',
  path: '/v1/status/market',
  operationId: 'getMarketStatus',
  summary: 'Market status',
  description:
    'The conventional session running by the US equities calendar (the reference issuer\'s timetable, transition pauses included), `paused` between two sessions or while an operator paused the whole market, `closed` when none runs; the next open and close, and the off-hours window.',
  access: 'read',
  answers: { 200: { description: 'The market status.', schema: marketStatusSchema } },
  errors: [],
  handler: (services) => async (ctx) => {
    await respondCached(ctx, services, { tag: 'status', key: 'market', ttlMs: 1_000 }, async (): Promise<MarketStatusAnswer> =>
      marketStatusView(marketStatus(services.clock(), await getMarketState(services.db)), services.config.PUBLIC_BASE_URL),
    );
  },
});
