/**
 * GET /v1/status/assets[?symbol] — active and upcoming asset status events (pauses, limits, redeem-only): unscheduled
 * ones set by an operator, windows an operator scheduled, and the pause before each catalogue dividend's ex-date.
 */
import { z } from 'zod';
import { DIVIDEND_PAUSE, DIVIDEND_PAUSE_LOOKAHEAD_DAYS, listCurrentAssetEvents, type AssetStatusEventRecord } from '../../../db/queries/operator-controls';
import { documentationUrl } from '../../../domain/errors';
import { symbolSchema } from '../../../domain/token-symbol';
import { defineOperation } from '../../contract/operation';
import { respondCached } from '../respond';
import { assetStatusSchema, type AssetStatus } from './schemas';

/**
 * An event as the reference issuer answers it: ISO-8601 times, no `end` while open-ended, the reason's documentation.
 * The reference's reason codes here are ASSET_PAUSED and ASSET_LIMITED only, so a redeem-only event (minting limited to
 * nothing) reads ASSET_LIMITED, told apart by `redeemOnly`; an order it refuses still meets ASSET_REDEEM_ONLY.
 */
export function assetStatusView(event: AssetStatusEventRecord, now: number, baseUrl: string): AssetStatus {
  const redeemOnly = event.code === 'ASSET_REDEEM_ONLY';
  const code = event.code === 'ASSET_REDEEM_ONLY' ? 'ASSET_LIMITED' : event.code;
  return {
    symbol: event.symbol,
    status: event.startsAt <= now ? 'active' : 'upcoming',
    type: event.type,
    reason: { code, message: event.reason, documentation: documentationUrl(baseUrl, code) },
    ...(redeemOnly && { redeemOnly }),
    start: new Date(event.startsAt).toISOString(),
    ...(event.endsAt !== null && { end: new Date(event.endsAt).toISOString() }),
    eventId: event.eventId,
    updateSharesMultiplier: event.updateSharesMultiplier,
  };
}

const statusQuery = z.object({ symbol: symbolSchema.optional().describe('Only this asset; default every asset.') });

export const assetStatusesOperation = defineOperation({
  method: 'get',
  path: '/v1/status/assets',
  operationId: 'listAssetStatuses',
  summary: 'Active and upcoming asset statuses',
  description:
    `Pauses and limits of assets: unscheduled ones an operator set, scheduled windows such as a stock split or earnings, and the \`${DIVIDEND_PAUSE.reason}\` pause from ${DIVIDEND_PAUSE.from} to ${DIVIDEND_PAUSE.until} New York time on the day before each dividend's ex-date (listed from ${DIVIDEND_PAUSE_LOOKAHEAD_DAYS} days before it starts). Events that ended are not listed.`,
  access: 'read',
  query: statusQuery,
  fieldCodes: { symbol: 'INVALID_SYMBOL' },
  answers: { 200: { description: 'The events, earliest start first.', schema: z.array(assetStatusSchema) } },
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { query: { symbol } }) => {
    const asset = symbol === undefined ? undefined : await services.assets.resolve(symbol);
    await respondCached(ctx, services, { tag: 'status', key: `assets:${asset?.symbol ?? '*'}`, ttlMs: 1_000 }, async (): Promise<AssetStatus[]> => {
      const now = services.clock();
      const events = await listCurrentAssetEvents(services.db, now, asset?.symbol);
      return events.map((event) => assetStatusView(event, now, services.config.PUBLIC_BASE_URL));
    });
  },
});
