/** The webhooks resource: an account's endpoints, their secrets and state, and their deliveries. */
import type { Resource } from '../../contract/operation';
import { createWebhookOperation } from './create-webhook';
import { deleteWebhookOperation } from './delete-webhook';
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
