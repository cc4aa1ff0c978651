/** The assets resource: prices, market data, candles, corporate actions and contract addresses. */
import Router from '@koa/router';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { allAddressesRoute } from './all-addresses';
import { assetAddressesRoute } from './asset-addresses';
import { assetPriceRoute } from './asset-price';
import { dividendsRoute } from './dividends';
import { enhancedPricesRoute } from './enhanced-prices';
import { latestPricesRoute } from './latest-prices';
import { marketDataRoute } from './market-data';
import { ohlcRoute } from './ohlc';
import { sharesMultiplierRoute } from './shares-multiplier';

export function assetsRouter(services: ApiServices): Router<ApiState> {
  return new Router<ApiState>({ prefix: '/assets' })
    .get('/all/prices/latest', latestPricesRoute(services))
    .get('/all/prices/latest/enhanced', enhancedPricesRoute(services))
    .get('/all/addresses', allAddressesRoute(services))
    .get('/:symbol/prices/latest', assetPriceRoute(services))
    .get('/:symbol/prices/ohlc', ohlcRoute(services))
    .get('/:symbol/market', marketDataRoute(services))
    .get('/:symbol/shares-multiplier', sharesMultiplierRoute(services))
    .get('/:symbol/dividends', dividendsRoute(services))
    .get('/:symbol/addresses', assetAddressesRoute(services));
}
