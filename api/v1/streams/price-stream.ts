/** GET /v1/stream/prices?symbols=AAPLon,TSLAon — `price` events: the latest price of each symbol, then every change. */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { priceStreamRequest } from '../../../streams/requests';
import { parseQuery } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { marketStreams, openEventStream } from './open-stream';

/** `symbols` comma-separated, repeated, or absent (every asset). */
const priceStreamQuery = z.object({ symbols: z.union([z.string(), z.array(z.string())]).optional() });

export function priceStreamRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const streams = marketStreams(services);
    const { symbols } = parseQuery(priceStreamQuery, ctx.query, { symbols: 'INVALID_SYMBOL' });
    const listed = [symbols ?? []].flat().flatMap((value) => value.split(',')).map((symbol) => symbol.trim()).filter((symbol) => symbol !== '');
    await openEventStream(ctx, streams, await priceStreamRequest(streams.hub, listed));
  };
}
