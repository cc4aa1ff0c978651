/**
 * Webhook delivery, one endpoint at a time: a round claims the endpoint's due deliveries (at most one per resource,
 * so a resource's events arrive in order), posts them signed, up to WEBHOOK_CONCURRENCY_PER_ENDPOINT at once, and
 * records each attempt with its next time (the retry schedule, ±20 % jitter, the receiver's Retry-After as a floor).
 * A 410 disables the endpoint (`gone`), and so does failing for longer than WEBHOOK_DISABLE_AFTER_MS (`failures`,
 * with the reason its owner sees). Signing secrets are opened here only, in memory, for the round.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Database } from '../db/pool';
import {
  claimDueWebhookDeliveries,
  findWebhookEndpoint,
  nextWebhookDueAt,
  pruneWebhookHistory,
  recordWebhookAttempt,
  type DueWebhookDelivery,
  type WebhookEndpointRecord,
} from '../db/queries/webhooks';
import { webhookAttempts, webhookDeliverySeconds } from '../metrics/metrics';
import type { WebhookDeliveryRound } from '../temporal/messages';
import type { SecretBox } from '../webhooks/secret-box';
import { sendWebhook, type WebhookResponse, type WebhookSendOptions } from '../webhooks/send';
import { signWebhook } from '../webhooks/signing';
import type { Resolver, UrlPolicy } from '../webhooks/url-guard';

/** A round's length: it ends then (the workflow starts the next), so a worker's stop never waits long on it. */
const ROUND_MS = 60_000;
/** How often a round heartbeats while its requests are in flight. */
const HEARTBEAT_MS = 2_000;
/** A claimed delivery's lease beyond the request's deadline: past it, another worker closes the attempt `interrupted`. */
const LEASE_MARGIN_MS = 10_000;
/**
 * How stale the endpoint a round posts to (its URL, secrets, failure record) may be: a state its owner changes is safe
 * sooner (disabling cancels its pending deliveries, deleting removes them), a rotated secret signs within this.
 */
const ENDPOINT_REREAD_MS = 1_000;
/** The next attempt's wait is the schedule's ±JITTER. */
const JITTER = 0.2;
export const WEBHOOK_USER_AGENT = 'tokenized-stock-issuer-webhooks/1 (+https://www.standardwebhooks.com)';

/** What delivering needs: the worker has it when WEBHOOK_SECRET_KEYS is set. */
export interface WebhookDelivery {
  /** WEBHOOK_SECRET_KEYS opened. */
  secrets: SecretBox;
  policy: UrlPolicy;
  /** WEBHOOK_RETRY_SCHEDULE: the wait before each attempt, the first's included. */
  retrySchedule: readonly number[];
  disableAfterMs: number;
  timeoutMs: number;
  concurrency: number;
  agents: WebhookSendOptions['agents'];
  /** Tests map names to local addresses; default: the system's DNS. */
  resolve?: Resolver;
}

export interface WebhookActivityDependencies {
  db: Database;
  /** Absent: this worker delivers no webhook (the rounds fail, retried until a worker that can runs them). */
  delivery?: WebhookDelivery;
  /** WEBHOOK_RETENTION_DAYS; absent (a worker of a test or benchmark): the history is kept. */
  retentionDays?: number;
}

/** When attempt `attempt + 1` is due after attempt `attempt` failed; null once the schedule is spent. */
export function nextAttemptAt(schedule: readonly number[], attempt: number, retryAfterMs: number | null, now: number, random = Math.random): number | null {
  const wait = schedule[attempt];
  if (wait === undefined) return null;
  const jittered = wait * (1 - JITTER + 2 * JITTER * random());
  const floor = retryAfterMs === null ? 0 : Math.min(retryAfterMs, Math.max(...schedule));
  return Math.round(now + Math.max(jittered, floor));
}

/** The secrets that sign for `endpoint` now: the current one, and the previous until it expires. */
function signingSecrets(box: SecretBox, endpoint: WebhookEndpointRecord, now: number): string[] {
  const secrets = [box.open(endpoint.endpointId, endpoint.secret)];
  const previous = endpoint.previousSecret;
  if (previous && previous.expiresAt > now) secrets.push(box.open(endpoint.endpointId, previous));
  return secrets;
}

/** The short text an attempt's failure is recorded (and an endpoint disabled) with. */
function failureOf(response: WebhookResponse): string {
  return response.status === null ? (response.error ?? 'no answer') : `HTTP ${response.status}`;
}

/** Posts one claimed delivery and records its attempt; answers whether the endpoint was disabled by it. */
async function attempt(
  db: Database,
  delivery: WebhookDelivery,
  endpoint: WebhookEndpointRecord,
  secrets: string[],
  due: DueWebhookDelivery,
): Promise<'delivered' | 'failed' | 'disabled'> {
  const body = JSON.stringify(due.envelope);
  const at = new Date();
  const response = await sendWebhook(
    {
      url: endpoint.url,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        'webhook-id': due.envelope.id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1_000)),
        'webhook-signature': signWebhook(secrets, due.envelope.id, at, body),
      },
    },
    { policy: delivery.policy, timeoutMs: delivery.timeoutMs, agents: delivery.agents, resolve: delivery.resolve },
  );
  const now = Date.now();
  const { retrySchedule, disableAfterMs } = delivery;
  const ok = response.status !== null && response.status >= 200 && response.status < 300;
  const outcome = ok ? 'delivered' : response.refused ? 'refused' : 'failed';
  webhookAttempts.inc({ outcome });
  if (ok) webhookDeliverySeconds.observe(Math.max(0, now - due.envelope.timestamp) / 1_000);
  const failingFor = endpoint.failingSince === null ? 0 : now - endpoint.failingSince;
  const disable = ok
    ? undefined
    : response.status === 410
      ? { by: 'gone' as const, reason: 'the endpoint answered 410 Gone' }
      : failingFor > disableAfterMs
        ? { by: 'failures' as const, reason: `failing since ${new Date(endpoint.failingSince!).toISOString()}: ${failureOf(response)}` }
        : undefined;
  await recordWebhookAttempt(db, {
    deliveryId: due.deliveryId,
    attempt: due.attempt,
    outcome,
    status: response.status,
    error: ok ? null : (response.error ?? `HTTP ${response.status}`),
    responseExcerpt: response.excerpt,
    address: response.address,
    durationMs: response.durationMs,
    nextAttemptAt: ok ? null : nextAttemptAt(retrySchedule, due.attempt, response.retryAfterMs, now),
    ...(disable ? { disable } : {}),
  });
  return disable ? 'disabled' : ok ? 'delivered' : 'failed';
}

export function createWebhookActivities(deps: WebhookActivityDependencies) {
  const { db } = deps;
  return {
    /**
     * Delivers what is due for the endpoint, for up to a minute: claims as requests finish (one finishing may make
     * its resource's next event due), heartbeating. Answers when the endpoint has work next.
     */
    async deliverDueWebhooks({ endpointId }: { endpointId: string }): Promise<WebhookDeliveryRound> {
      const { delivery } = deps;
      if (!delivery) throw ApplicationFailure.create({ type: 'WEBHOOKS_NOT_CONFIGURED', message: 'this worker has no WEBHOOK_SECRET_KEYS' });
      const context = Context.current();
      const deadline = Date.now() + ROUND_MS;
      const heartbeat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
      const round: WebhookDeliveryRound = { delivered: 0, failed: 0, nextDueAt: null, endpoint: 'enabled' };
      const inFlight = new Set<Promise<void>>();
      let known: { endpoint: WebhookEndpointRecord; secrets: string[]; readAt: number } | undefined;
      try {
        let drained = false;
        for (;;) {
          const free = delivery.concurrency - inFlight.size;
          const claiming = !drained && free > 0 && round.endpoint === 'enabled' && Date.now() < deadline && !context.cancellationSignal.aborted;
          if (claiming) {
            if (!known || Date.now() - known.readAt >= ENDPOINT_REREAD_MS) {
              const endpoint = await findWebhookEndpoint(db, 'any', endpointId);
              if (!endpoint || endpoint.state === 'disabled') {
                round.endpoint = endpoint ? 'disabled' : 'deleted';
                continue;
              }
              known = { endpoint, secrets: signingSecrets(delivery.secrets, endpoint, Date.now()), readAt: Date.now() };
            }
            const { endpoint, secrets } = known;
            const claimed = await claimDueWebhookDeliveries(db, endpointId, { limit: free, leaseMs: delivery.timeoutMs + LEASE_MARGIN_MS });
            drained = claimed.length < free;
            for (const due of claimed) {
              const sending: Promise<void> = attempt(db, delivery, endpoint, secrets, due).then((result) => {
                inFlight.delete(sending);
                if (result === 'delivered') round.delivered += 1;
                else round.failed += 1;
                if (result === 'disabled') round.endpoint = 'disabled';
              });
              inFlight.add(sending);
            }
            if (claimed.length > 0) continue;
          }
          if (inFlight.size === 0) break;
          await Promise.race(inFlight);
          // A request finished: its resource's next event may be due now.
          drained = false;
        }
      } finally {
        clearInterval(heartbeat);
        await Promise.allSettled(inFlight);
      }
      if (round.endpoint === 'enabled') round.nextDueAt = await nextWebhookDueAt(db, endpointId);
      return round;
    },

    /** Deletes finished deliveries, their attempts and unneeded events older than WEBHOOK_RETENTION_DAYS. */
    async pruneWebhookHistory(): Promise<{ deliveries: number; events: number }> {
      if (deps.retentionDays === undefined) return { deliveries: 0, events: 0 };
      return pruneWebhookHistory(db, Date.now() - deps.retentionDays * 86_400_000);
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
