/** Live streams over Server-Sent Events: prices of several symbols, candles of one symbol. */
import Router from '@koa/router';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { candleStreamRoute } from './candle-stream';
import { priceStreamRoute } from './price-stream';

export function streamsRouter(services: ApiServices): Router<ApiState> {
  return new Router<ApiState>()
    .get('/stream/prices', priceStreamRoute(services))
    .get('/assets/:symbol/prices/ohlc/stream', candleStreamRoute(services));
}
