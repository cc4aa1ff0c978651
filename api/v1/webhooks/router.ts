/** The webhooks resource: an account's endpoints, their secrets and state, and their deliveries. */
import type { WebhookEventDocument } from '../../contract/document';
import type { Resource } from '../../contract/operation';
import { WEBHOOK_EVENT_TYPE_NAMES, WEBHOOK_EVENT_TYPES } from '../../../domain/webhook-events';
import { createWebhookOperation } from './create-webhook';
import { deleteWebhookOperation } from './delete-webhook';
import { WEBHOOK_EVENT_SCHEMAS } from './event-schemas';
import { disableWebhookOperation } from './disable-webhook';
import { enableWebhookOperation } from './enable-webhook';
import { getWebhookOperation } from './get-webhook';
import { listDeliveriesOperation } from './list-deliveries';
import { listWebhooksOperation } from './list-webhooks';
import { replayDeliveryOperation } from './replay-delivery';
import { rotateWebhookSecretOperation } from './rotate-webhook-secret';

export const webhooksResource: Resource = {
  tag: 'Webhooks',
  description:
    "Endpoints an account registers to be told, signed per Standard Webhooks, as its attestations, redemptions and partner requests change state (and, for the issuer's operators, reserves and reviews); their secrets, their state and their deliveries.",
  operations: [
    createWebhookOperation,
    listWebhooksOperation,
    getWebhookOperation,
    deleteWebhookOperation,
    rotateWebhookSecretOperation,
    disableWebhookOperation,
    enableWebhookOperation,
    listDeliveriesOperation,
    replayDeliveryOperation,
  ],
};

/** Every event of the catalogue as the document's `webhooks` section shows it: its description and its envelope. */
export const WEBHOOK_EVENT_DOCUMENTS: Record<string, WebhookEventDocument> = Object.fromEntries(
  WEBHOOK_EVENT_TYPE_NAMES.map((type) => [type, { description: WEBHOOK_EVENT_TYPES[type].description, schema: WEBHOOK_EVENT_SCHEMAS[type] }]),
);
