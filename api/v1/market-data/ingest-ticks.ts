/**
 * POST /v1/market-data/ticks (admin) — real prices in: ticks of known symbols, not from the future,
 * stored as latest prices and candles exactly like the simulated feed's. Refused while the simulated feed owns the prices
 * (it would overwrite them a tick later, leaving a wick in the candles).
 */
import { INGEST_BODY_LIMIT_BYTES, ingestRequest } from '../../../price-feed/ingest';
import { ApiError } from '../../../domain/errors';
import { defineOperation } from '../../contract/operation';
import { ingestResultSchema, type IngestResult } from './schemas';

/** Clock skew tolerated between a data provider and this service. */
const MAX_FUTURE_MS = 5_000;

export const ingestTicksOperation = defineOperation({
  method: 'post',
  path: '/v1/market-data/ticks',
  operationId: 'ingestTicks',
  summary: 'Ingest price ticks',
  description:
    "Real prices in, from a data provider: up to 5,000 ticks of known symbols, each with a token or underlying price (or both) and optional volumes, timestamped no more than 5 seconds in the future. They are stored as latest prices and candles exactly like the simulated feed's. A process whose prices come from the simulated feed (`PRICE_SOURCE=simulated`) refuses them with `PRICES_SIMULATED`: the feed would overwrite them a tick later. A process that does not ingest prices answers `RESOURCE_NOT_FOUND`.",
  access: 'admin',
  body: ingestRequest,
  bodyLimitBytes: INGEST_BODY_LIMIT_BYTES,
  answers: { 202: { description: 'The ticks were accepted.', schema: ingestResultSchema } },
  errors: ['RESOURCE_NOT_FOUND', 'PRICES_SIMULATED', 'ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { body: { ticks } }) => {
    if (services.pricesSimulated) {
      throw new ApiError('PRICES_SIMULATED', 'The simulated price feed owns the prices of this process: start it with PRICE_SOURCE=external to ingest ticks');
    }
    const ingest = services.ingestTicks;
    if (!ingest) throw new ApiError('RESOURCE_NOT_FOUND', 'Market-data ingestion is not enabled in this process');
    const now = services.clock();
    for (const [index, tick] of ticks.entries()) {
      if (!(await services.assets.find(tick.symbol))) {
        throw new ApiError('ASSET_NOT_FOUND', `ticks.${index}.symbol: asset ${tick.symbol} not found`);
      }
      if (tick.timestamp > now + MAX_FUTURE_MS) {
        throw new ApiError('INVALID_REQUEST_BODY', `Invalid request body: ticks.${index}.timestamp: is in the future`);
      }
    }
    const result: IngestResult = await ingest(ticks);
    await services.changed('prices');
    await services.changed('candles');
    ctx.status = 202;
    ctx.body = result;
  },
});
