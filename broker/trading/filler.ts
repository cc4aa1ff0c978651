/**
 * Fills the sandbox's orders once due (submission + the fill latency): each due order is locked in its own
 * transaction (others skip it) and filled at the sandbox's price for the symbol at that moment, up to the liquidity
 * of one fill (the rest follows one latency later, `partially_filled` meanwhile). A limit order not marketable is
 * looked at again after the latency; a day order still open when the trading day ends is `canceled`; an order the
 * account cannot pay for (cash) or deliver (shares) is `rejected` (or `canceled` with what it filled). Everything
 * is in SQL, so a restart carries on where it stopped.
 */
import type { Pool } from 'pg';
import type { Logger } from '../../config/logger';
import { inTransaction } from '../../db/pool';
import { DueWorkLoop } from '../../db/due-work-loop';
import { Decimal } from '../../domain/money';
import { closeOrder, fillOrder, lockDueOrders, nextOrderDueAt, postponeOrder, type OrderRecord } from '../queries/orders';
import { marketHoursAt, type MarketPrice } from './market';

export interface OrderFillerOptions {
  db: Pool;
  logger: Logger;
  marketPrice: MarketPrice;
  clock: () => number;
  /** Between submission and fill, and between the slices of an order larger than `maxFillQty`. */
  fillLatencyMs: number;
  /** The most shares one fill takes (undefined: the whole order at once). */
  maxFillQty?: string;
  pollMs: number;
}

export class OrderFiller {
  private readonly loop: DueWorkLoop;
  private maxFillQty: string | undefined;

  constructor(private readonly options: OrderFillerOptions) {
    this.maxFillQty = options.maxFillQty;
    this.loop = new DueWorkLoop({
      name: 'order filler',
      logger: options.logger,
      pollMs: options.pollMs,
      clock: options.clock,
      drain: () => this.drain(),
      nextDueAt: () => nextOrderDueAt(options.db),
    });
  }

  /** Looks for due orders now (or as soon as the current pass ends). */
  wake(): void {
    this.loop.wake();
  }

  /** The most shares one fill takes from now on (undefined: whole orders); the fills already made stay as they are. */
  setMaxFillQty(qty: string | undefined): void {
    this.maxFillQty = qty;
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private async drain(): Promise<void> {
    while (!this.loop.isStopped) {
      const handled = await inTransaction(this.options.db, async (client) => {
        const now = this.options.clock();
        const [order] = await lockDueOrders(client, now, 1);
        if (!order) return false;
        await this.handle(client, order, now);
        return true;
      });
      if (!handled) return;
    }
  }

  private async handle(client: Parameters<typeof fillOrder>[0], order: OrderRecord, now: number): Promise<void> {
    const { fillLatencyMs } = this.options;
    const { maxFillQty } = this;
    const filledSome = new Decimal(order.filledQty).gt(0);
    const hours = marketHoursAt(now);
    // A transition pause inside the trading day holds the order until the next session; the day's end cancels it.
    if (!hours.open && now < order.expiresAt.getTime() && hours.nextOpenAt !== undefined && hours.nextOpenAt < order.expiresAt.getTime()) {
      await postponeOrder(client, order.orderId, hours.nextOpenAt);
      return;
    }
    if (now >= order.expiresAt.getTime() || !hours.open) {
      await closeOrder(client, order.orderId, 'canceled', 'day order: the trading day ended before it filled');
      return;
    }
    const price = await this.options.marketPrice(order.symbol);
    const marketable =
      price !== undefined &&
      (order.type === 'market' || (order.side === 'buy' ? new Decimal(price).lte(order.limitPrice!) : new Decimal(price).gte(order.limitPrice!)));
    if (!marketable) {
      await postponeOrder(client, order.orderId, now + Math.max(fillLatencyMs, 100));
      return;
    }
    const remaining = new Decimal(order.qty).minus(order.filledQty);
    const qty = maxFillQty === undefined ? remaining : Decimal.min(remaining, maxFillQty);
    const filled = await fillOrder(client, order, { qty: qty.toFixed(), price, now, nextDueAt: now + fillLatencyMs });
    if (filled.outcome === 'insufficient') {
      await closeOrder(client, order.orderId, filledSome ? 'canceled' : 'rejected', filled.what);
      this.options.logger.info({ orderId: order.orderId, clientOrderId: order.clientOrderId, reason: filled.what }, 'order not filled');
    }
  }
}
