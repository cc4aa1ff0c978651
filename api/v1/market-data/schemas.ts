/** The answers of the market-data resource as zod schemas (named in the OpenAPI document); the routes' types come from them. */
import { z } from 'zod';
import { component } from '../../contract/components';

export const ingestResultSchema = component(
  'IngestResult',
  z.object({ accepted: z.int().nonnegative().describe('Ticks stored.') }),
);
export type IngestResult = z.infer<typeof ingestResultSchema>;
