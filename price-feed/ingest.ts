/**
 * Ticks from outside (the admin ingestion endpoint or an import): their schema, and the
 * limits on what one request may carry.
 */
import { z } from 'zod';
import type { PriceTick } from './price-source';

const MAX_TICKS_PER_REQUEST = 5_000;
/** Room for one tick with every field at its longest, pretty-printed. */
const MAX_TICK_BYTES = 512;
/** The ingestion route's own body limit: a full request of the longest ticks fits (2.5 MB). */
export const INGEST_BODY_LIMIT_BYTES = MAX_TICKS_PER_REQUEST * MAX_TICK_BYTES;
const price = z.string().regex(/^\d{1,15}(\.\d{1,18})?$/, 'must be a positive decimal string with at most 18 decimals');
const volume = z.string().regex(/^\d{1,18}(\.\d{1,18})?$/, 'must be a non-negative decimal string with at most 18 decimals');

export const priceTickInput = z
  .strictObject({
    symbol: z.string().min(3).max(32),
    /** Epoch ms. */
    timestamp: z.number().int().positive(),
    tokenPrice: price.optional(),
    tokenVolume: volume.optional(),
    underlyingPrice: price.optional(),
    underlyingVolume: volume.optional(),
  })
  .refine((tick) => tick.tokenPrice !== undefined || tick.underlyingPrice !== undefined, {
    message: 'needs tokenPrice or underlyingPrice',
  })
  .refine((tick) => !/^0+(\.0+)?$/.test(tick.tokenPrice ?? '1') && !/^0+(\.0+)?$/.test(tick.underlyingPrice ?? '1'), {
    message: 'prices must be greater than zero',
  });

export type PriceTickInput = z.infer<typeof priceTickInput> & PriceTick;

export const ingestRequest = z.strictObject({ ticks: z.array(priceTickInput).min(1).max(MAX_TICKS_PER_REQUEST) });
