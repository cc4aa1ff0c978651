/**
 * GET /v1/assets/{symbol}/prices/ohlc/stream?interval=1min — `candle` events: the current bucket, its updates while
 * open, one final update with `isClosed: true`, then the next bucket. Intervals `1min` (default), `5min`, `15min`.
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { candleStreamRequest } from '../../../streams/requests';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { parseParams, parseQuery } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { marketStreams, openEventStream } from './open-stream';

const candleStreamQuery = z.object({ interval: z.string().optional() });

export function candleStreamRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const streams = marketStreams(services);
    const { symbol } = parseParams(symbolParams, ctx.params, SYMBOL_PARAM_CODES);
    const { interval } = parseQuery(candleStreamQuery, ctx.query, { interval: 'INVALID_INTERVAL' });
    await openEventStream(ctx, streams, await candleStreamRequest(streams.hub, symbol, interval));
  };
}
