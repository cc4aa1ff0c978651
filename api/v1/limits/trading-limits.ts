/**
 * GET /v1/limits/trading?symbol&side — the calling user's real-time headroom for an asset: tokens and
 * notional still allowed, attestations left, and why trading is restricted if it is. Both parameters
 * are required. A key without an account (read-only) sees the headroom of a user with nothing outstanding.
 * Never cached.
 */
import { z } from 'zod';
import { ASSET_LIMITED_MESSAGE, headroom } from '../../../attestations/limits';
import { pricingPolicy, REDEEM_ONLY_MESSAGE } from '../../../attestations/price-request';
import { loadTradingStatus } from '../../../attestations/trading-status';
import { sessionExposure, userUsage, type UserUsage } from '../../../db/queries/attestations';
import { Decimal, formatDecimal, Rounding } from '../../../domain/money';
import { quotePrice, tokenAmountForNotional } from '../../../domain/pricing';
import { symbolSchema } from '../../../domain/token-symbol';
import { defineOperation } from '../../contract/operation';
import { documentationUrl } from '../../../domain/errors';


import { requireAttestations } from '../attestations/context';
import { tradingLimitsSchema, type TradingLimitReason, type TradingLimits } from './schemas';

const tradingQuery = z.object({
  symbol: symbolSchema.describe('The token.'),
  side: z.enum(['buy', 'sell'], { error: 'side is required and must be buy or sell' }).describe('`buy` (mint) or `sell` (redeem).'),
});

const NOTHING_USED: UserUsage = { outstandingCount: 0, outstandingNotional: '0', sessionNotional: '0' };

export const tradingLimitsOperation = defineOperation({
  method: 'get',
  path: '/v1/limits/trading',
  operationId: 'getTradingLimits',
  summary: "The user's real-time trading limits for an asset",
  description:
    "What the calling account's user may still attest for the asset now: tokens and notional (the tightest of its outstanding and session notional limits, the limited order size, and the issuer's off-hours exposure caps) and attestations left. When the market or asset is paused or closed, no price is current, or a limit is exhausted, `isAssetTradingOpen` is false and `reason` names the code an attestation would be refused with. A key without an account (read-only) sees the headroom of a user with nothing outstanding. Never cached.",
  access: 'read',
  query: tradingQuery,
  fieldCodes: { symbol: 'INVALID_SYMBOL', side: 'INVALID_SIDE' },
  answers: { 200: { description: 'The headroom, and why trading is restricted if it is.', schema: tradingLimitsSchema } },
  errors: ['ATTESTATIONS_UNAVAILABLE', 'ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { query }) => {
    const { settings } = requireAttestations(services);
    const asset = await services.assets.resolve(query.symbol);
    const now = services.clock();
    const accountId = ctx.state.apiKey?.accountId;
    const { status, context } = await loadTradingStatus(services.db, asset, now);
    const [usage, exposure] = await Promise.all([
      accountId ? userUsage(services.db, { accountId, symbol: asset.symbol, now, sessionStartedAt: status.sessionStartedAt }) : NOTHING_USED,
      status.session === 'offhours' ? sessionExposure(services.db, { symbol: asset.symbol, now, sessionStartedAt: status.sessionStartedAt }) : undefined,
    ]);
    const room = headroom(status, usage, exposure, settings);
    const policy = pricingPolicy(context);
    const fresh = context.tokenPrice !== null && context.priceObservedAt !== null && policy && now - context.priceObservedAt <= settings.maxPriceAgeMs;
    const price = fresh ? quotePrice(new Decimal(context.tokenPrice!), query.side, 'short', policy) : undefined;

    let reason: { code: TradingLimitReason; message: string } | undefined;
    const redeemOnly = status.redeemOnly && query.side === 'buy';
    if (status.restriction) reason = status.restriction;
    else if (redeemOnly) reason = { code: 'ASSET_REDEEM_ONLY', message: REDEEM_ONLY_MESSAGE(asset.symbol) };
    else if (!price) reason = { code: 'PRICE_UNAVAILABLE', message: `No current price for ${asset.symbol}` };
    else if (room.exhausted) reason = room.exhausted;
    else if (status.limited) reason = { code: 'ASSET_LIMITED', message: ASSET_LIMITED_MESSAGE };
    const open = !status.restriction && !redeemOnly && price !== undefined && room.exhausted === undefined;

    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      timestamp: now,
      symbol: asset.symbol,
      side: query.side,
      maxTokens: open && price ? formatDecimal(tokenAmountForNotional(room.maxNotional, price)) : '0',
      maxNotionalValue: open ? formatDecimal(room.maxNotional, 18, Rounding.DOWN) : '0',
      remainingAttestations: String(status.restriction ? 0 : room.remainingAttestations),
      isAssetTradingOpen: open,
      ...(reason && { reason: { message: reason.message, documentation: documentationUrl(services.config.PUBLIC_BASE_URL, reason.code), code: reason.code } }),
    } satisfies TradingLimits;
  },
});
