/** GET /v1/stream/prices?symbols=AAPLon,TSLAon — `price` events: the latest price of each symbol, then every change. */
import { z } from 'zod';
import { MAX_SYMBOL_LENGTH } from '../../../domain/token-symbol';
import { MAX_STREAM_SYMBOLS, priceStreamRequest } from '../../../streams/requests';
import { defineOperation } from '../../contract/operation';
import { parameterText } from '../../framework/parameters';
import { LAST_EVENT_ID_HEADER, STREAM_ERRORS, streamDescription } from './describe-stream';
import { marketStreams, openEventStream } from './open-stream';
import { PRICE_STREAM_EVENTS } from './schemas';

/** One `symbols` value: room for the most symbols a stream takes, comma-separated. */
const symbolList = parameterText(MAX_STREAM_SYMBOLS * (MAX_SYMBOL_LENGTH + 1));

/** `symbols` comma-separated, repeated, or absent (every asset). */
const priceStreamQuery = z.object({
  symbols: z
    .union([symbolList, z.array(symbolList).max(MAX_STREAM_SYMBOLS)])
    .optional()
    .describe(`Token symbols, comma-separated or repeated, at most ${MAX_STREAM_SYMBOLS}; absent: every asset.`),
});

export const priceStreamOperation = defineOperation({
  method: 'get',
  path: '/v1/stream/prices',
  operationId: 'streamPrices',
  summary: 'Live prices (Server-Sent Events)',
  description:
    'A `price` event with the latest price of each symbol at once, then one on every change. Symbols are checked before the stream opens, so a malformed or unknown one is an ordinary error answer.',
  access: 'read',
  query: priceStreamQuery,
  fieldCodes: { symbols: 'INVALID_SYMBOL' },
  headers: { 'Last-Event-ID': LAST_EVENT_ID_HEADER },
  answers: {
    200: {
      contentType: 'text/event-stream',
      events: PRICE_STREAM_EVENTS,
      description: streamDescription(
        '`event: price`; `data`: an [`AssetPrice`](#/components/schemas/AssetPrice), the shape of an item of `GET /v1/assets/all/prices/latest`.',
      ),
    },
  },
  errors: [...STREAM_ERRORS],
  handler: (services) => async (ctx, { query: { symbols } }) => {
    const streams = marketStreams(services);
    const listed = [symbols ?? []].flat().flatMap((value) => value.split(',')).map((symbol) => symbol.trim()).filter((symbol) => symbol !== '');
    await openEventStream(ctx, streams, await priceStreamRequest(streams.hub, listed));
  },
});
