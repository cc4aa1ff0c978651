/**
 * What the metrics endpoint reads of webhooks at each scrape: the deliveries waiting (pending, through the partial
 * index of the due ones) and how long the oldest has waited, and the endpoints by state.
 */
import type { Queryable } from '../pool';

export interface WebhookGauges {
  pending: number;
  /** Seconds since the oldest pending delivery was queued; null when none is. */
  oldestPendingAgeSeconds: number | null;
  /** Endpoints by state, a disabled one by who disabled it (`owner`, `failures`, `gone`). */
  endpoints: { state: string; disabledBy: string; count: number }[];
}

export async function webhookGauges(db: Queryable): Promise<WebhookGauges> {
  const [pending, endpoints] = await Promise.all([
    db.query<{ pending: number; age: number | null }>(
      `SELECT count(*)::int AS pending, extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS age
         FROM webhook_deliveries WHERE state = 'pending'`,
    ),
    db.query<{ state: string; disabledBy: string; count: number }>(
      `SELECT state, coalesce(disabled_by, '') AS "disabledBy", count(*)::int AS count FROM webhook_endpoints GROUP BY 1, 2 ORDER BY 1, 2`,
    ),
  ]);
  return { pending: pending.rows[0]!.pending, oldestPendingAgeSeconds: pending.rows[0]!.age, endpoints: endpoints.rows };
}
