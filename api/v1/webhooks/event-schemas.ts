/**
 * What a webhook endpoint receives, as zod schemas (named in the OpenAPI document's `webhooks` section): one envelope
 * per family of the catalogue (domain/webhook-events.ts), `type` the family's types and `data` the resource in the
 * shape of its API answer as it stood when the event happened. The triggers of migration 020 build `data` in SQL;
 * test/webhooks/emission.test.ts holds them to these schemas and to the answers of the read routes.
 */
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPE_NAMES, type WebhookEventType, type WebhookResourceKind } from '../../../domain/webhook-events';
import { decimalString, epochMs } from '../../../domain/json-formats';
import { component } from '../../contract/components';
import { attestationRecordSchema } from '../attestations/schemas';
import { hedgesSchema } from '../reserves/schemas';
import { partnerRequestSchema } from '../tokenization/schemas';

/** A redemption (an IssuerRedeem burn of the account's tokens); no read route answers one, so it is its own shape. */
export const redemptionEventDataSchema = z
  .object({
    redemptionId: z.string().describe("The redemption's id (its workflow id): `redemption-<chain>-<txHash>-<logIndex>`."),
    chain: z.string().describe('The EVM chain of the burn, e.g. `ethereum-1`.'),
    txHash: z.string().describe('The burn transaction.'),
    logIndex: z.int().nonnegative(),
    blockNumber: z.int().nonnegative().describe('The block holding the burn.'),
    wallet: z.string().describe('The wallet that burned the tokens.'),
    token: z.string().describe('The token contract.'),
    symbol: z.string().nullable().describe('The token, e.g. `AAPLon`; null for a token not in the catalogue.'),
    amount: decimalString.describe('Token base units burned (18 decimals).'),
    usdNotional: decimalString.describe("The contract's USD figure for the burn (18 decimals)."),
    state: z
      .enum(['awaiting_finality', 'cancelled', 'pending', 'needs_review', 'delivering', 'completed', 'rejected'])
      .describe('`awaiting_finality` until the block is final (`cancelled` if it leaves the chain), then `pending` → `delivering` → `completed`.'),
  })
  .describe('A burn of the account’s tokens and where its delivery stands.');

const hedgeOrderSchema = hedgesSchema.shape.orders.element;
const reservePauseSchema = hedgesSchema.shape.pauses.element;

type Family = 'attestation' | 'redemption' | 'partner_request' | 'reserves' | 'review';

function typesOf(family: Family): [WebhookEventType, ...WebhookEventType[]] {
  return WEBHOOK_EVENT_TYPE_NAMES.filter((type) => type.startsWith(`${family}.`)) as [WebhookEventType, ...WebhookEventType[]];
}

function envelope<D extends z.ZodType>(family: Family, kinds: WebhookResourceKind[], data: D) {
  return z.object({
    id: z.string().regex(/^evt_\d+$/).describe('`evt_<sequence>`, the same as the `webhook-id` header: stable across retries and replays, deduplicate by it.'),
    type: z.enum(typesOf(family)),
    timestamp: epochMs.describe('When the fact became true (the transaction that changed the state).'),
    resource: z.object({ kind: z.enum(kinds as [WebhookResourceKind, ...WebhookResourceKind[]]), id: z.string() }),
    sequence: z.string().regex(/^\d+$/).describe("Orders the events of one resource (and is unique across all): a later event has a greater sequence."),
    data,
  });
}

export const attestationEventSchema = component(
  'AttestationEvent',
  envelope('attestation', ['attestation'], attestationRecordSchema).describe('An attestation changed state: `data` is what `GET /v1/attestations/{id}` answered then.'),
);

export const redemptionEventSchema = component(
  'RedemptionEvent',
  envelope('redemption', ['redemption'], redemptionEventDataSchema).describe("A redemption of the account's tokens changed state."),
);

export const partnerRequestEventSchema = component(
  'PartnerRequestEvent',
  envelope('partner_request', ['partner_request'], partnerRequestSchema).describe(
    "A partner request of the account's changed state: `data` is what `GET /v1/tokenization/requests/{id}` answers, without `workflow`.",
  ),
);

export const reservesEventSchema = component(
  'ReservesEvent',
  envelope('reserves', ['asset'], reservePauseSchema).describe('An asset became short of reserves (paused) or covered again, as `GET /v1/reserves/hedges` lists its pause.'),
);

export const reviewEventSchema = component(
  'ReviewEvent',
  envelope('review', ['partner_request', 'hedge_order'], z.union([partnerRequestSchema, hedgeOrderSchema])).describe(
    'Something waits for an operator: a partner request (as `GET /v1/tokenization/requests/{id}` answers it) or a hedge order (as `GET /v1/reserves/hedges` lists it).',
  ),
);

const FAMILY_SCHEMAS = {
  attestation: attestationEventSchema,
  redemption: redemptionEventSchema,
  partner_request: partnerRequestEventSchema,
  reserves: reservesEventSchema,
  review: reviewEventSchema,
} as const;

/** The envelope schema of each event type (its family's). */
export const WEBHOOK_EVENT_SCHEMAS = Object.fromEntries(
  WEBHOOK_EVENT_TYPE_NAMES.map((type) => [type, FAMILY_SCHEMAS[type.slice(0, type.indexOf('.')) as Family]]),
) as Record<WebhookEventType, (typeof FAMILY_SCHEMAS)[keyof typeof FAMILY_SCHEMAS]>;

export type AttestationEvent = z.infer<typeof attestationEventSchema>;
export type RedemptionEvent = z.infer<typeof redemptionEventSchema>;
export type PartnerRequestEvent = z.infer<typeof partnerRequestEventSchema>;
export type ReservesEvent = z.infer<typeof reservesEventSchema>;
export type ReviewEvent = z.infer<typeof reviewEventSchema>;
export type WebhookEvent = AttestationEvent | RedemptionEvent | PartnerRequestEvent | ReservesEvent | ReviewEvent;
