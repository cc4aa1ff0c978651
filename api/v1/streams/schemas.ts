/**
 * The `data` of each live-stream event as a named schema, so a client types its stream iterators from the
 * document (`x-event-schemas` of the two Server-Sent Events answers): a price event is an `AssetPrice`, a candle
 * event a `CandleStreamEvent`, the last event of a dropped stream a `StreamDropped`.
 */
import { z } from 'zod';
import { epochMs } from '../../../domain/json-formats';
import { assetPriceSchema, candleSchema } from '../../../domain/market/views';
import { STREAM_INTERVALS, type CandleEventData } from '../../../streams/events';
import { component } from '../../contract/components';

export const candleStreamEventSchema = component(
  'CandleStreamEvent',
  z
    .object({
      interval: z.enum(STREAM_INTERVALS),
      timestamp: epochMs.describe('The bucket start.'),
      isClosed: z.boolean().describe("True for the bucket's final values (sent again, revised, if a late tick changes them)."),
      primaryMarket: z.object({ symbol: z.string(), candle: candleSchema.nullable().describe('null while this market has none in the bucket.') }),
      underlyingMarket: z.object({ ticker: z.string(), candle: candleSchema.nullable().describe('null while this market has none in the bucket.') }),
    })
    .describe('The `data` of a `candle` event.') satisfies z.ZodType<CandleEventData>,
);

export const streamDroppedSchema = component(
  'StreamDropped',
  z.object({ reason: z.string().describe('Why the stream ends, e.g. the client read too slowly.') }).describe('The `data` of the last event (`dropped`) of a stream the service ends.'),
);

/** The events of the price stream, by name. */
export const PRICE_STREAM_EVENTS = { price: assetPriceSchema, dropped: streamDroppedSchema };

/** The events of the candle stream, by name. */
export const CANDLE_STREAM_EVENTS = { candle: candleStreamEventSchema, dropped: streamDroppedSchema };
