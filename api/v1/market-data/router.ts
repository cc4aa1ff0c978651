/** The market-data resource: ingestion of real prices (admin). */
import type { Resource } from '../../contract/operation';
import { ingestTicksOperation } from './ingest-ticks';

export const marketDataResource: Resource = {
  tag: 'Market data',
  description: 'Ingestion of real prices from a data provider (admin).',
  operations: [ingestTicksOperation],
};
