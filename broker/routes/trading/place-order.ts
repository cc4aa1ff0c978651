/**
 * POST /v1/trading/accounts/{account_id}/orders — places an order for the account, as on the brokerage network's
 * broker trading interface: `{symbol, qty, side, type, limit_price?, time_in_force: "day", client_order_id}` → 201
 * the order (`new`), filled by the filler after the fill latency at the sandbox's price then. The `client_order_id`
 * names the order once per account: placing it again with the same fields answers that first order as it stands (200,
 * `Idempotent-Replayed: true`, never a second fill); with other fields it is 422 CLIENT_ORDER_ID_REUSED. Refused while
 * the sandbox does not trade (422 MARKET_CLOSED, naming the next open), for a symbol without a price, and a sell of
 * more than the account holds.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { Decimal } from '../../../domain/money';
import { BrokerError } from '../../errors';
import { accountParams, qtySchema, underlyingSymbolSchema } from '../../fields';
import { readJsonBody } from '../../framework/body';
import { requestFingerprint, respond } from '../../framework/idempotency';
import type { BrokerState } from '../../framework/state';
import { parseBody, parseParams } from '../../framework/validation';
import { inTransaction } from '../../../db/pool';
import { claimIdempotencyKey, findIdempotentResponse, storeIdempotentResponse } from '../../queries/idempotent-responses';
import { findOrderByClientOrderId, insertOrder, orderView, positionsOf } from '../../queries/orders';
import type { BrokerServices } from '../../services';
import { marketHoursAt } from '../../trading/market';
import { requireAccount } from '../context';

const PRICE = /^(0|[1-9]\d{0,14})(\.\d{1,9})?$/;

export const orderBody = z.strictObject({
  symbol: underlyingSymbolSchema,
  qty: qtySchema,
  side: z.enum(['buy', 'sell'], { error: 'must be buy or sell' }),
  type: z.enum(['market', 'limit'], { error: 'must be market or limit' }),
  limit_price: z.string({ error: 'must be a decimal string' }).regex(PRICE, 'must be a decimal string with at most nine decimals').refine((value) => /[1-9]/.test(value), 'must be greater than zero').optional(),
  time_in_force: z.literal('day', { error: 'must be day' }),
  client_order_id: z.string({ error: 'must be a string' }).regex(/^[\x21-\x7e]{1,128}$/, 'must be 1–128 printable ASCII characters without spaces'),
});

const FIELDS = { symbol: 'INVALID_SYMBOL', qty: 'INVALID_QTY', side: 'INVALID_ORDER', type: 'INVALID_ORDER', limit_price: 'INVALID_ORDER', time_in_force: 'INVALID_ORDER', client_order_id: 'INVALID_ORDER' } as const;

export function placeOrderRoute(services: BrokerServices): Middleware<BrokerState> {
  const { trading } = services;
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const raw = await readJsonBody(ctx, services.bodyLimitBytes);
    const body = parseBody(orderBody, raw, FIELDS);
    if ((body.type === 'limit') !== (body.limit_price !== undefined)) {
      throw new BrokerError('INVALID_ORDER', body.type === 'limit' ? 'limit_price: required for a limit order' : 'limit_price: only a limit order has one');
    }
    await requireAccount(services.db, ctx, accountId);
    const scope = `order:${accountId}`;
    const fingerprint = requestFingerprint(ctx.path, { ...body, qty: new Decimal(body.qty).toFixed(), limit_price: body.limit_price && new Decimal(body.limit_price).toFixed() });

    const response = await inTransaction(services.db, async (client) => {
      if (!(await claimIdempotencyKey(client, scope, body.client_order_id, fingerprint))) {
        const stored = (await findIdempotentResponse(client, scope, body.client_order_id))!;
        if (stored.fingerprint !== fingerprint) throw new BrokerError('CLIENT_ORDER_ID_REUSED', `client_order_id ${body.client_order_id} names an order placed with other fields`);
        const first = (await findOrderByClientOrderId(client, accountId, body.client_order_id))!;
        return { status: 200, body: orderView(first), replayed: true };
      }
      const now = trading.clock();
      const hours = marketHoursAt(now);
      if (!hours.open) {
        const next = hours.nextOpenAt === undefined ? 'not within 30 days' : new Date(hours.nextOpenAt).toISOString();
        throw new BrokerError('MARKET_CLOSED', `The sandbox does not trade now; it opens next at ${next}`);
      }
      if ((await trading.marketPrice(body.symbol)) === undefined) throw new BrokerError('SYMBOL_NOT_TRADABLE', `The sandbox has no price for ${body.symbol}`);
      if (body.side === 'sell') {
        const held = (await positionsOf(client, accountId)).find((position) => position.symbol === body.symbol)?.qty ?? '0';
        if (new Decimal(held).lt(body.qty)) throw new BrokerError('INSUFFICIENT_POSITION', `The account holds ${held} ${body.symbol}, less than the ${body.qty} to sell`);
      }
      const order = await insertOrder(client, {
        orderId: randomUUID(),
        accountId,
        clientOrderId: body.client_order_id,
        symbol: body.symbol,
        qty: new Decimal(body.qty).toFixed(),
        side: body.side,
        type: body.type,
        limitPrice: body.limit_price ?? null,
        submittedAt: now,
        fillDueAt: now + trading.fillLatencyMs,
        expiresAt: hours.closesAt,
      });
      const view = orderView(order);
      await storeIdempotentResponse(client, scope, body.client_order_id, { status: 201, body: view });
      return { status: 201, body: view, replayed: false };
    });
    respond(ctx, response);
    if (!response.replayed) trading.wake();
  };
}
