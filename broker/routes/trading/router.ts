/**
 * The sandbox's trading side under /v1/trading/accounts (basic auth; the issuer on its own account, a participant on
 * its own): orders placed, read and listed, and the positions they move.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { requireRole } from '../../framework/basic-auth';
import type { BrokerState } from '../../framework/state';
import type { BrokerServices } from '../../services';
import { getOrderRoute, listOrdersRoute, positionsRoute } from './orders';
import { placeOrderRoute } from './place-order';

export function tradingRouter(services: BrokerServices, authenticate: Middleware<BrokerState>): Router<BrokerState> {
  const either = requireRole('participant', 'issuer');
  return new Router<BrokerState>({ prefix: '/v1/trading/accounts' })
    .use(authenticate)
    .post('/:account_id/orders', either, placeOrderRoute(services))
    .get('/:account_id/orders', either, listOrdersRoute(services))
    .get('/:account_id/orders/:order_id', either, getOrderRoute(services))
    .get('/:account_id/positions', either, positionsRoute(services));
}
