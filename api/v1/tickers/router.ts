/** The tickers resource. */
import type { Resource } from '../../contract/operation';
import { tickersOperation } from './tickers';

export const tickersResource: Resource = {
  tag: 'Tickers',
  description: 'Last price and 24-hour volumes of every token against the settlement token.',
  operations: [tickersOperation],
};
