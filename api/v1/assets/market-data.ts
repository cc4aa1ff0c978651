/**
 * GET /v1/assets/{symbol}/market — price, 24 h change and history, holders, multiplier, sessions,
 * and the underlying's statistics (null for portfolio tokens, which list their constituents instead).
 */
import type { AssetRecord } from '../../../db/queries/assets';
import { multipliersAt } from '../../../db/queries/corporate-actions';
import { dailyStatistics, listCandles, windowOpenPrices } from '../../../db/queries/candles';
import { findLatestPrice } from '../../../db/queries/latest-prices';
import { change24h } from '../../../domain/market/statistics';
import { Decimal, formatDecimal, Rounding } from '../../../domain/money';
import { ApiError } from '../../../domain/errors';
import type { ApiServices } from '../../services';
import { respondCached } from '../respond';
import { windowStart } from './windows';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { defineOperation } from '../../contract/operation';
import { marketDataSchema, type MarketData } from './schemas';

async function underlyingMarket(services: ApiServices, asset: AssetRecord, price: string, now: number) {
  const stats = await dailyStatistics(services.db, asset.symbol, 'underlying', now);
  return {
    ticker: asset.ticker,
    name: asset.name,
    price,
    priceHigh52w: stats.high52w ?? price,
    priceLow52w: stats.low52w ?? price,
    volume: formatDecimal(stats.lastVolume ?? '0', 0, Rounding.DOWN),
    averageVolume: formatDecimal(stats.averageVolume ?? asset.averageVolume, 0, Rounding.DOWN),
    sharesOutstanding: asset.sharesOutstanding,
    marketCap: formatDecimal(new Decimal(price).times(asset.sharesOutstanding), 2, Rounding.DOWN),
  };
}

/** The market data of one asset now; 404 ASSET_NOT_FOUND while it has no price yet. */
export async function marketDataOf(services: ApiServices, asset: AssetRecord): Promise<MarketData> {
  const now = services.clock();
  const from = windowStart(asset, '1day', now);
  const [latest, history, opens, multipliers] = await Promise.all([
    findLatestPrice(services.db, asset.symbol),
    listCandles(services.db, { symbol: asset.symbol, interval: '15min', from }),
    windowOpenPrices(services.db, 'primary', [{ symbol: asset.symbol, from }]),
    multipliersAt(services.db, now),
  ]);
  if (!latest) throw new ApiError('ASSET_NOT_FOUND', `No price for ${asset.symbol} yet`);
  const windowOpen = opens.get(asset.symbol) ?? latest.tokenPrice;
  return {
    primaryMarket: {
      symbol: asset.symbol,
      price: latest.tokenPrice,
      ...change24h(latest.tokenPrice, windowOpen),
      priceHistory24h: history.primary.map((candle) => ({ timestamp: candle.bucketStart, price: candle.close })),
      totalHolders: asset.holders,
      sharesMultiplier: multipliers.get(asset.symbol) ?? '1',
      tradableSessions: asset.tradableSessions,
    },
    underlyingMarket: asset.kind === 'portfolio' ? null : await underlyingMarket(services, asset, latest.underlyingPrice, now),
    constituentTokens: asset.constituents.map((constituent) => constituent.symbol),
    timestamp: latest.observedAt,
  };
}

export const marketDataOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/{symbol}/market',
  operationId: 'getMarketData',
  summary: 'Market data of one asset',
  description: "Price, 24-hour change and history, holders, shares multiplier and tradable sessions, with the underlying's statistics (null for portfolio tokens, which list their constituents instead).",
  access: 'read',
  params: symbolParams,
  fieldCodes: SYMBOL_PARAM_CODES,
  answers: { 200: { description: 'The market data.', schema: marketDataSchema } },
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { params }) => {
    const asset = await services.assets.resolve(params.symbol);
    await respondCached(ctx, services, { tag: 'prices', key: `market:${asset.symbol}`, ttlMs: 60_000 }, () => marketDataOf(services, asset));
  },
});
