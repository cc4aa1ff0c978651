/** GET /v1/tickers — last price and 24 h volumes of every token against the settlement token. */
import { listLatestPrices } from '../../../db/queries/latest-prices';
import { primaryVolumesSince } from '../../../db/queries/candles';
import { z } from 'zod';
import { defineOperation } from '../../contract/operation';
import { respondCached } from '../respond';
import { tickerSchema, type Ticker } from './schemas';

/** The stable token that trades settle in. */
export const SETTLEMENT_TOKEN = 'USDon';

export const tickersOperation = defineOperation({
  method: 'get',
  path: '/v1/tickers',
  operationId: 'listTickers',
  summary: 'Tickers of every token',
  description: 'The last price and 24-hour volumes of every token with a price, against the settlement token `USDon`.',
  access: 'read',
  answers: { 200: { description: 'One ticker per token with a price.', schema: z.array(tickerSchema) } },
  errors: [],
  handler: (services) => async (ctx) => {
    await respondCached(ctx, services, { tag: 'prices', key: 'tickers', ttlMs: 1_000 }, async (): Promise<Ticker[]> => {
      const [prices, volumes] = await Promise.all([
        listLatestPrices(services.db),
        primaryVolumesSince(services.db, services.clock() - 86_400_000),
      ]);
      // The spec makes these JSON numbers: the one place decimal strings become floats.
      return prices.map((price) => {
        const volume = volumes.get(price.symbol);
        return {
          tickerId: `${price.symbol}_${SETTLEMENT_TOKEN}`,
          baseCurrency: price.symbol,
          targetCurrency: SETTLEMENT_TOKEN,
          lastPrice: Number(price.tokenPrice),
          baseVolume: Number(volume?.baseVolume ?? 0),
          targetVolume: Number(volume?.targetVolume ?? 0),
        };
      });
    });
  },
});
