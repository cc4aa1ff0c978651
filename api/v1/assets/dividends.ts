/** GET /v1/assets/{symbol}/dividends — trailing-year yield at the current price, payout frequency, last dividend. */
import { listDividends } from '../../../db/queries/corporate-actions';
import { findLatestPrice } from '../../../db/queries/latest-prices';
import { newYorkDate } from '../../../domain/calendar';
import { dividendYield, payoutFrequency } from '../../../domain/market/statistics';
import { formatDecimal } from '../../../domain/money';
import { respondCached } from '../respond';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { defineOperation } from '../../contract/operation';
import { dividendsSchema, type DividendInfo } from './schemas';

export const dividendsOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/{symbol}/dividends',
  operationId: 'getDividends',
  summary: 'Dividend information of one asset',
  description: 'Trailing-year yield at the current price, payout frequency (by the average days between payments) and the last dividend.',
  access: 'read',
  params: symbolParams,
  fieldCodes: SYMBOL_PARAM_CODES,
  answers: { 200: { description: 'The dividend information.', schema: dividendsSchema } },
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { params }) => {
    const asset = await services.assets.resolve(params.symbol);
    await respondCached(ctx, services, { tag: 'corporate-actions', key: `dividends:${asset.symbol}`, ttlMs: 60_000 }, async (): Promise<DividendInfo> => {
      const now = services.clock();
      const today = newYorkDate(now);
      const [dividends, latest] = await Promise.all([listDividends(services.db, asset.symbol, today), findLatestPrice(services.db, asset.symbol)]);
      const price = latest?.underlyingPrice;
      const paid = dividends.filter((dividend) => dividend.paymentDate <= today);
      const last = paid.at(-1);
      return {
        ticker: asset.ticker,
        dividendYield: price ? formatDecimal(dividendYield(dividends, now, price)) : '0',
        payoutFrequency: payoutFrequency(dividends.map((dividend) => dividend.paymentDate), now),
        lastCashAmount: last?.cashAmount ?? '0',
        lastPaymentDate: last?.paymentDate ?? null,
        timestamp: now,
      };
    });
  },
});
