/** GET /v1/assets/{symbol}/prices/ohlc?interval&range — candles of the token and its underlying. */
import { z } from 'zod';
import { listCandles } from '../../../db/queries/candles';
import { INTERVALS, RANGES, VALID_PAIRS, type Interval } from '../../../domain/market/candles';
import { ApiError } from '../../../domain/errors';
import { respondCached } from '../respond';
import { windowStart } from './windows';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { defineOperation } from '../../contract/operation';
import { ohlcSchema, type Ohlc } from './schemas';
import { candleView } from '../../../domain/market/views';

const ohlcQuery = z.object({ interval: z.enum(INTERVALS), range: z.enum(RANGES) });

/** How long an answer may be reused: never longer than one candle, and at most 30 s. */
const CACHE_MS: Record<Interval, number> = {
  '1min': 1_000,
  '5min': 5_000,
  '15min': 15_000,
  '1hour': 30_000,
  '4hour': 30_000,
  '12hour': 30_000,
  '1day': 30_000,
};

export const ohlcOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/{symbol}/prices/ohlc',
  operationId: 'getOhlc',
  summary: 'Candles of a token and its underlying',
  description: `Valid interval/range pairs: ${VALID_PAIRS.map((pair) => `${pair.interval}/${pair.range}`).join(', ')}. Range \`1day\` is a rolling 24 hours of open market (a plain 24 hours for assets that trade off-hours).`,
  access: 'read',
  params: symbolParams,
  query: ohlcQuery,
  fieldCodes: { ...SYMBOL_PARAM_CODES, interval: 'INVALID_INTERVAL', range: 'INVALID_RANGE' },
  answers: { 200: { description: 'Candles oldest first, for the token (`primaryMarket`) and its underlying.', schema: ohlcSchema } },
  errors: ['INVALID_INTERVAL_RANGE_PAIR', 'ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { params, query: { interval, range } }) => {
    const asset = await services.assets.resolve(params.symbol);
    if (!VALID_PAIRS.some((pair) => pair.interval === interval && pair.range === range)) {
      const valid = VALID_PAIRS.map((pair) => `${pair.interval}/${pair.range}`).join(', ');
      throw new ApiError('INVALID_INTERVAL_RANGE_PAIR', `interval ${interval} with range ${range} is not supported; valid pairs: ${valid}`);
    }
    const key = `ohlc:${asset.symbol}:${interval}:${range}`;
    await respondCached(ctx, services, { tag: 'candles', key, ttlMs: CACHE_MS[interval] }, async (): Promise<Ohlc> => {
      const candles = await listCandles(services.db, {
        symbol: asset.symbol,
        interval,
        from: windowStart(asset, range, services.clock()),
      });
      return {
        interval,
        range,
        primaryMarket: { symbol: asset.symbol, data: candles.primary.map(candleView) },
        underlyingMarket: { ticker: asset.ticker, data: candles.underlying.map(candleView) },
      };
    });
  },
});
