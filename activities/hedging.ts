/**
 * The hedging activities: open a batch of what an underlying owes (db/queries/hedging.ts), work one order of it at
 * the broker through to its end, settle the batch. An order is placed under its `client_order_id`
 * (`<batchId>-<side>`), so a retry after a crash anywhere — before the broker answered, or after it answered and
 * before anything was recorded — finds the first order instead of placing a second one.
 *
 * While the market or the asset is paused, or the broker does not trade (MARKET_CLOSED), or does not answer, the
 * order waits: the activity fails with `HEDGE_WAITING`, recording why, and is retried with backoff (at most a
 * minute apart), so it is placed soon after the next open. A refusal the broker will repeat, or an order the broker
 * rejects, goes to review with the broker's reason.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Database } from '../db/pool';
import { findHedgeOrder, openHedgeBatch, recordHedgeOutcome, recordHedgeWait, settleHedgeBatch, type HedgeBatch, type HedgeSide } from '../db/queries/hedging';
import { hedgeHold } from '../db/queries/reserves';
import { BrokerCallFailed, brokerErrorCode, type BrokerClient, type BrokerOrder } from '../partner/broker-client';

export interface HedgingActivityDependencies {
  db: Database;
  /** Absent: orders wait (retried) until a worker that has the broker runs them. */
  broker?: BrokerClient;
  /** Between two looks at an order the broker has not finished. */
  orderPollMs?: number;
}

export const hedgeFailureTypes = { waiting: 'HEDGE_WAITING' } as const;

export interface HedgeOrderOutcome {
  state: 'filled' | 'canceled' | 'review';
  filledQty: string;
  filledAvgPrice: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function waiting(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: hedgeFailureTypes.waiting, message, nonRetryable: false });
}

export function createHedgingActivities(deps: HedgingActivityDependencies) {
  const { db } = deps;
  const pollMs = deps.orderPollMs ?? 200;

  async function settle(batchId: string, side: HedgeSide, order: BrokerOrder, state: HedgeOrderOutcome['state'], reason: string | null): Promise<HedgeOrderOutcome> {
    await recordHedgeOutcome(db, {
      batchId,
      side,
      state,
      brokerOrderId: order.id,
      filledQty: order.filled_qty,
      filledAvgPrice: order.filled_avg_price,
      reason,
      filledAt: order.filled_at ? Date.now() : null,
    });
    return { state, filledQty: order.filled_qty, filledAvgPrice: order.filled_avg_price };
  }

  return {
    /** The open batch of the underlying, or a new one of what it owes (null: nothing owed). */
    async openHedgeBatch(input: { underlying: string }): Promise<HedgeBatch | null> {
      return (await openHedgeBatch(db, input.underlying)) ?? null;
    },

    /** Places one order of a batch (or finds it placed) and follows it to its end at the broker. */
    async executeHedgeOrder(input: { batchId: string; side: HedgeSide }): Promise<HedgeOrderOutcome> {
      const { batchId, side } = input;
      const recorded = await findHedgeOrder(db, batchId, side);
      if (!recorded) throw ApplicationFailure.create({ type: 'HEDGE_ORDER_UNKNOWN', message: `no ${side} order in ${batchId}`, nonRetryable: true });
      if (recorded.state !== 'pending') return { state: recorded.state, filledQty: recorded.filledQty, filledAvgPrice: recorded.filledAvgPrice };
      const hold = await hedgeHold(db, recorded.underlying);
      if (hold) {
        await recordHedgeWait(db, batchId, side, hold);
        throw waiting(hold);
      }
      if (!deps.broker) {
        await recordHedgeWait(db, batchId, side, 'this worker has no broker configured');
        throw waiting('this worker has no broker configured');
      }
      let order: BrokerOrder;
      try {
        order = await deps.broker.placeOrder({ symbol: recorded.underlying, qty: recorded.qty, side, type: 'market', client_order_id: recorded.clientOrderId });
      } catch (error) {
        if (!(error instanceof BrokerCallFailed)) throw error;
        const code = brokerErrorCode(error);
        if (error.refused && code !== 'MARKET_CLOSED') {
          const reason = `${code ?? error.status}: ${error.answer ?? error.message}`;
          await recordHedgeOutcome(db, { batchId, side, state: 'review', brokerOrderId: null, filledQty: '0', filledAvgPrice: null, reason, filledAt: null });
          Context.current().log.error('hedge order refused by the broker: to review', { batchId, side, reason });
          return { state: 'review', filledQty: '0', filledAvgPrice: null };
        }
        const why = code === 'MARKET_CLOSED' ? `the broker does not trade now: ${error.answer}` : `the broker is unavailable: ${error.message}`;
        await recordHedgeWait(db, batchId, side, why);
        throw waiting(why);
      }
      await recordHedgeWait(db, batchId, side, 'placed; waiting for the fill', { brokerOrderId: order.id });
      for (;;) {
        Context.current().heartbeat(order.status);
        if (order.status === 'filled') return await settle(batchId, side, order, 'filled', null);
        if (order.status === 'canceled') return await settle(batchId, side, order, 'canceled', order.reason ?? 'canceled by the broker');
        if (order.status === 'rejected') {
          Context.current().log.error('hedge order rejected by the broker: to review', { batchId, side, reason: order.reason });
          return await settle(batchId, side, order, 'review', `rejected: ${order.reason ?? 'no reason given'}`);
        }
        await sleep(pollMs);
        if (Context.current().cancellationSignal.aborted) throw Context.current().cancellationSignal.reason;
        try {
          order = await deps.broker.getOrder(order.id);
        } catch (error) {
          if (!(error instanceof BrokerCallFailed)) throw error;
          await recordHedgeWait(db, batchId, side, `the broker is unavailable: ${error.message}`, { brokerOrderId: order.id });
          throw waiting(error.message);
        }
      }
    },

    async settleHedgeBatch(input: { batchId: string }): Promise<'done' | 'review'> {
      return await settleHedgeBatch(db, input.batchId);
    },
  };
}

export type HedgingActivities = ReturnType<typeof createHedgingActivities>;
