/** Live streams over Server-Sent Events: prices of several symbols, candles of one symbol. */
import type { Resource } from '../../contract/operation';
import { candleStreamOperation } from './candle-stream';
import { priceStreamOperation } from './price-stream';

export const streamsResource: Resource = {
  tag: 'Streams',
  description:
    'Live prices and candles over Server-Sent Events, in the shapes of the REST answers, resumable with `Last-Event-ID`. Each API key may hold a limited number of streams open (`RATE_LIMITED` past it).',
  operations: [priceStreamOperation, candleStreamOperation],
};
