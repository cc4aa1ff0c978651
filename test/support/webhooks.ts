/**
 * Webhook endpoints and their events for tests of any package: an endpoint inserted in SQL (its secret sealed by the
 * real SecretBox, as the API would), and what the triggers of migration 020 wrote for it.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/pool';
import { insertWebhookEndpoint, type WebhookEndpointRecord } from '../../db/queries/webhooks';
import type { WebhookAudience, WebhookEventType, WebhookResourceKind } from '../../domain/webhook-events';
import { createSecretBox, newWebhookMasterKey, type SecretBox } from '../../webhooks/secret-box';
import { newWebhookSecret } from '../../webhooks/signing';

export interface TestEndpoint {
  endpoint: WebhookEndpointRecord;
  /** The signing secret in clear (`whsec_…`), as its owner was shown it. */
  secret: string;
  /** The box that sealed it (its keyring is `masterKeys`): pass the same keys to the worker under test. */
  secrets: SecretBox;
  masterKeys: string;
}

/** A fresh `wh_` id. */
export function testEndpointId(): string {
  return `wh_${randomBytes(8).toString('hex')}`;
}

/**
 * Registers an endpoint for `accountId` as the API would (enabled, its secret sealed under `masterKeys`, a new
 * keyring unless given). `audience` defaults to `operators` when an event of the operators is listed.
 */
export async function insertTestEndpoint(
  db: Queryable,
  options: { accountId: string; url: string; events: WebhookEventType[]; audience?: WebhookAudience; masterKeys?: string; description?: string },
): Promise<TestEndpoint> {
  const masterKeys = options.masterKeys ?? newWebhookMasterKey();
  const secrets = createSecretBox(masterKeys);
  const endpointId = testEndpointId();
  const secret = newWebhookSecret();
  const audience = options.audience ?? (options.events.some((type) => type.startsWith('reserves.') || type.startsWith('review.')) ? 'operators' : 'account');
  const { endpoint } = await insertWebhookEndpoint(db, {
    endpointId,
    accountId: options.accountId,
    audience,
    url: options.url,
    eventTypes: options.events,
    description: options.description ?? null,
    secret: secrets.seal(endpointId, secret),
  });
  return { endpoint, secret, secrets, masterKeys };
}

/** An event as stored, with the endpoints it was queued for. */
export interface StoredWebhookEvent {
  sequence: string;
  type: WebhookEventType;
  audience: WebhookAudience;
  accountId: string | null;
  resource: { kind: WebhookResourceKind; id: string };
  data: unknown;
  endpointIds: string[];
}

/** Every event queued for `endpointId` (or, without one, every event), in sequence order. */
export async function webhookEventsOf(db: Queryable, endpointId?: string): Promise<StoredWebhookEvent[]> {
  const { rows } = await db.query<Omit<StoredWebhookEvent, 'resource'> & { kind: WebhookResourceKind; id: string }>(
    `SELECT e.seq::text AS sequence, e.type, e.audience, e.account_id AS "accountId", e.resource_kind AS kind, e.resource_id AS id, e.payload AS data,
            coalesce(array_agg(d.endpoint_id ORDER BY d.endpoint_id) FILTER (WHERE d.endpoint_id IS NOT NULL), '{}') AS "endpointIds"
       FROM webhook_events e LEFT JOIN webhook_deliveries d ON d.event_seq = e.seq
      WHERE $1::text IS NULL OR EXISTS (SELECT 1 FROM webhook_deliveries m WHERE m.event_seq = e.seq AND m.endpoint_id = $1)
      GROUP BY e.seq ORDER BY e.seq`,
    [endpointId ?? null],
  );
  return rows.map(({ kind, id, ...event }) => ({ ...event, resource: { kind, id } }));
}
