/**
 * GET /v1/trading/accounts/{account_id}/orders/{order_id} — one order as it stands; GET …/orders?status=open|closed|all
 * (default open)&symbols=AAPL,TSLA&limit=1–500 (default 50) — the account's orders, newest first;
 * GET …/positions — the account's share positions `[{symbol, qty}]` and nothing else (cash is on `GET /v1/accounts/{id}`).
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { BrokerError } from '../../errors';
import { accountParams, underlyingSymbolSchema, uuidSchema } from '../../fields';
import type { BrokerState } from '../../framework/state';
import { parseParams, parseQuery } from '../../framework/validation';
import { findOrder, listOrders, orderView, positionsOf } from '../../queries/orders';
import type { BrokerServices } from '../../services';
import { requireAccount } from '../context';

const orderParams = accountParams.extend({ order_id: uuidSchema });

const listQuery = z.object({
  status: z.enum(['open', 'closed', 'all'], { error: 'must be open, closed or all' }).default('open'),
  symbols: z
    .string()
    .transform((value) => value.split(',').filter((symbol) => symbol !== ''))
    .pipe(z.array(underlyingSymbolSchema).min(1).max(100))
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export function getOrderRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId, order_id: orderId } = parseParams(orderParams, ctx.params);
    await requireAccount(services.db, ctx, accountId);
    const order = await findOrder(services.db, accountId, orderId);
    if (!order) throw new BrokerError('ORDER_NOT_FOUND', `No order ${orderId} in account ${accountId}`);
    ctx.body = orderView(order);
  };
}

export function listOrdersRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const query = parseQuery(listQuery, ctx.query);
    await requireAccount(services.db, ctx, accountId);
    ctx.body = (await listOrders(services.db, { accountId, ...query })).map(orderView);
  };
}

export function positionsRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    await requireAccount(services.db, ctx, accountId);
    ctx.body = await positionsOf(services.db, accountId);
  };
}
