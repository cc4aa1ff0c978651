/**
 * GET /v1/assets/{symbol}/prices/ohlc/stream?interval=1min — `candle` events: the current bucket, its updates while
 * open, one final update with `isClosed: true` (again, revised, if a late tick changes it), then the next bucket.
 * Intervals `1min` (default), `5min`, `15min`.
 */
import { z } from 'zod';
import { STREAM_INTERVALS } from '../../../streams/events';
import { candleStreamRequest } from '../../../streams/requests';
import { defineOperation } from '../../contract/operation';
import { parameterText } from '../../framework/parameters';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { LAST_EVENT_ID_HEADER, STREAM_ERRORS, streamDescription } from './describe-stream';
import { marketStreams, openEventStream } from './open-stream';
import { CANDLE_STREAM_EVENTS } from './schemas';

const candleStreamQuery = z.object({
  interval: parameterText(16)
    .optional()
    .describe(`One of ${STREAM_INTERVALS.map((interval) => `\`${interval}\``).join(', ')}; default \`1min\`.`),
});

export const candleStreamOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/{symbol}/prices/ohlc/stream',
  operationId: 'streamCandles',
  summary: 'Live candles of a token and its underlying (Server-Sent Events)',
  description:
    'A `candle` event with the current bucket at once, one on every update while it is open, one final update with `isClosed: true` when it closes (when the next bucket starts, or shortly after the bucket ends), then the next bucket. A tick that arrives for a bucket already closed sends its closed candle again, revised.',
  access: 'read',
  params: symbolParams,
  query: candleStreamQuery,
  fieldCodes: { ...SYMBOL_PARAM_CODES, interval: 'INVALID_INTERVAL' },
  headers: { 'Last-Event-ID': LAST_EVENT_ID_HEADER },
  answers: {
    200: {
      contentType: 'text/event-stream',
      events: CANDLE_STREAM_EVENTS,
      description: streamDescription(
        '`event: candle`; `data`: `{interval, timestamp, isClosed, primaryMarket: {symbol, candle}, underlyingMarket: {ticker, candle}}` — `timestamp` the bucket start (epoch ms), `isClosed` true for the final values of a bucket (the last such event of a bucket is what `/prices/ohlc` answers for it), each `candle` a [`Candle`](#/components/schemas/Candle) as in `GET /v1/assets/{symbol}/prices/ohlc`, or null while that market has none in the bucket.',
      ),
    },
  },
  errors: [...STREAM_ERRORS, 'INVALID_INTERVAL'],
  handler: (services) => async (ctx, { params: { symbol }, query: { interval } }) => {
    const streams = marketStreams(services);
    await openEventStream(ctx, streams, await candleStreamRequest(streams.hub, [symbol], interval));
  },
});
