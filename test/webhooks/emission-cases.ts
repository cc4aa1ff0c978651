/**
 * The writers of every state that makes a webhook event (the plan's §1.3–1.5), each as a case of
 * test/webhooks/emission.test.ts: how to bring a resource of an account to where the writer acts, the writer itself
 * (on the connection given, so a test can run it in a transaction it rolls back), and the events it must give.
 */
import { randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../../db/pool';
import { markOutstandingAttestationExecuted, markOutstandingAttestationExpired } from '../../db/queries/attestation-lifecycle';
import { promoteFinal, recordObservedExecutions, recordObservedRedemptions, rewindChain, type ObservedExecution, type ObservedRedemption } from '../../db/queries/chain-observations';
import { recordHedgeOutcome } from '../../db/queries/hedging';
import { insertPartnerMint, insertPartnerRedemption, updatePartnerRequest, type PartnerRequestState } from '../../db/queries/partner-requests';
import { recordRedemption } from '../../db/queries/redemptions';
import { applyReservePauses, listReservePauses } from '../../db/queries/reserves';
import { newYorkTime } from '../../domain/calendar';
import type { WebhookEventType, WebhookResourceKind } from '../../domain/webhook-events';
import type { TestApi } from '../support/api';

export const MONDAY_10AM = newYorkTime('2026-11-23', '10:00');
const CHAIN = 'ethereum-1';
const GRACE_MS = 600_000;

/** Whose resources a pass writes: an account with its write key. */
export interface Owner {
  accountId: string;
  userId: `0x${string}`;
  key: string;
  /** Each pass's own off-hours hour, so the lapses of one pass never reach another's attestations. */
  offhoursAt: number;
}

/** An event a writer must give: its type, the account it is for (null: the operators) and its resource. */
export interface ExpectedEvent {
  type: WebhookEventType;
  accountId: string | null;
  resource: { kind: WebhookResourceKind; id: string };
}

export interface Prepared {
  /** The resource the writer changes. */
  id: string;
  /** A reserve pause as listed before the writer lifted it. */
  pauseBefore?: unknown;
}

export interface EmissionCase {
  name: string;
  prepare(api: TestApi, owner: Owner): Promise<Prepared>;
  write(db: Queryable, prepared: Prepared, owner: Owner, api: TestApi): Promise<unknown>;
  events(prepared: Prepared, owner: Owner): ExpectedEvent[];
  /** False when the writer commits (or opens a transaction) on its own. */
  rollback?: false;
}

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}` as `0x${string}`;
let block = 1_000;

/** An attestation of the owner created through POST /v1/attestations at `at`. */
async function attestation(api: TestApi, owner: Owner, at = MONDAY_10AM, symbol = 'AAPLon'): Promise<string> {
  await api.tradeAt(at);
  const response = await api.http.post('/v1/attestations').set('x-api-key', owner.key).send({ symbol, side: 'buy', tokenAmount: '1.5' });
  if (response.status !== 200) throw new Error(`attestation refused: ${JSON.stringify(response.body)}`);
  return response.body.attestationId as string;
}

function execution(attestationId: string, owner: Owner, final: boolean): ObservedExecution {
  block += 1;
  return {
    txHash: hex(32), logIndex: 0, blockNumber: block, blockHash: hex(32), executionId: String(block), attestationId, userId: owner.userId, side: 'buy',
    asset: hex(20), price: '200000000000000000000', quantity: '1500000000000000000', executedAt: MONDAY_10AM + 5_000, final,
  };
}

function redemption(owner: Owner, final: boolean): ObservedRedemption {
  block += 1;
  const txHash = hex(32);
  return {
    redemptionId: `redemption-1-${txHash}-0`, txHash, logIndex: 0, blockNumber: block, blockHash: hex(32), blockTime: MONDAY_10AM + 5_000, wallet: hex(20),
    userId: owner.userId, token: hex(20), symbol: 'AAPLon', underlyingSymbol: 'AAPL', tokenSymbol: 'AAPLon', amount: '1000000000000000000',
    usdNotional: '200000000000000000000', final,
  };
}

/** The writer of a burn scanned `final` or not, the new redemption being the case's resource. */
function observedRedemption(final: boolean): EmissionCase['write'] {
  return (db, prepared, owner) => {
    const seen = redemption(owner, final);
    prepared.id = seen.redemptionId;
    return recordObservedRedemptions(db, CHAIN, [seen]);
  };
}

/** Whatever earlier cases left seen on the chain made final now, so that a case's promotion moves only its own. */
async function settleChain(db: Queryable): Promise<void> {
  await promoteFinal(db, CHAIN, block);
}

async function seenExecution(api: TestApi, owner: Owner): Promise<Prepared> {
  await settleChain(api.db);
  const id = await attestation(api, owner);
  await recordObservedExecutions(api.db, CHAIN, [execution(id, owner, false)]);
  return { id };
}

async function seenRedemption(db: Queryable, owner: Owner): Promise<Prepared> {
  await settleChain(db);
  const seen = redemption(owner, false);
  await recordObservedRedemptions(db, CHAIN, [seen]);
  return { id: seen.redemptionId };
}

async function finalRedemption(db: Queryable, owner: Owner): Promise<Prepared> {
  const seen = await seenRedemption(db, owner);
  await promoteFinal(db, CHAIN, block);
  return seen;
}

async function partnerMint(db: Queryable, owner: Owner, state: PartnerRequestState = 'created'): Promise<Prepared> {
  const tokenizationRequestId = `tok-${randomBytes(6).toString('hex')}`;
  const { request } = await insertPartnerMint(db, {
    issuerRequestId: `mint-${tokenizationRequestId}`, clientId: owner.accountId, chain: CHAIN, underlyingSymbol: 'AAPL', tokenSymbol: 'AAPLon', wallet: hex(20),
    qty: '2.5', sessionStart: MONDAY_10AM - 1_800_000, notionalUsd: '500.25', tokenizationRequestId,
    mintRequest: { created: 1_790_000_000, nonce: String(block), brokerSignature: hex(65) }, brokerSigner: hex(20),
  });
  if (state !== 'created') await updatePartnerRequest(db, request.issuerRequestId, { state });
  return { id: request.issuerRequestId };
}

/** A partner redemption opened for the owner as its client, then moved to `state`. */
async function partnerRedemption(db: Queryable, owner: Owner, state: PartnerRequestState = 'pending'): Promise<Prepared> {
  const { id } = await finalRedemption(db, owner);
  await insertPartnerRedemption(db, partnerRedemptionOf(id, owner.accountId));
  if (state !== 'pending') await updatePartnerRequest(db, id, { state });
  return { id };
}

function partnerRedemptionOf(redemptionId: string, clientId: string | null) {
  return { redemptionId, clientId, chain: CHAIN, underlyingSymbol: 'AAPL', tokenSymbol: 'AAPLon', wallet: hex(20), tokenAmount: '1000000000000000000', txHash: hex(32) };
}

let hedgeBatches = 0;

async function pendingHedgeOrder(db: Queryable): Promise<Prepared> {
  hedgeBatches += 1;
  const batchId = `batch-webhooks-${hedgeBatches}`;
  await db.query(`INSERT INTO hedge_batches (batch_id, underlying, seq, state) VALUES ($1, 'WEBHOOKS', $2, 'done')`, [batchId, hedgeBatches]);
  await db.query(
    `INSERT INTO hedge_orders (batch_id, side, underlying, client_order_id, shares_owed, qty, state) VALUES ($1, 'buy', 'WEBHOOKS', $1 || '-buy', 2.5, 2.5, 'pending')`,
    [batchId],
  );
  return { id: `${batchId}-buy` };
}

const account = (type: WebhookEventType, kind: WebhookResourceKind) => (prepared: Prepared, owner: Owner): ExpectedEvent[] => [
  { type, accountId: owner.accountId, resource: { kind, id: prepared.id } },
];

const UPDATES: [PartnerRequestState, PartnerRequestState, 'mint' | 'redeem'][] = [
  ['created', 'confirmed', 'mint'],
  ['confirmed', 'minted', 'mint'],
  ['minted', 'completed', 'mint'],
  ['created', 'rejected', 'mint'],
  ['pending', 'delivering', 'redeem'],
  ['delivering', 'completed', 'redeem'],
  ['needs_review', 'rejected', 'redeem'],
];

export const EMISSION_CASES: EmissionCase[] = [
  {
    name: 'markOutstandingAttestationExpired (the attestation workflow, after the settlement grace)',
    prepare: async (api, owner) => ({ id: await attestation(api, owner) }),
    write: (db, { id }) => markOutstandingAttestationExpired(db, id),
    events: account('attestation.expired', 'attestation'),
  },
  {
    name: 'markOutstandingAttestationExecuted (the attestation workflow)',
    prepare: async (api, owner) => ({ id: await attestation(api, owner) }),
    write: (db, { id }) => markOutstandingAttestationExecuted(db, { attestationId: id, txHash: hex(32), executedAt: MONDAY_10AM + 5_000 }),
    events: account('attestation.executed', 'attestation'),
  },
  {
    name: 'recordObservedExecutions, an execution seen',
    prepare: async (api, owner) => ({ id: await attestation(api, owner) }),
    write: (db, { id }, owner) => recordObservedExecutions(db, CHAIN, [execution(id, owner, false)]),
    events: account('attestation.executing', 'attestation'),
  },
  {
    name: 'recordObservedExecutions, an execution already final',
    prepare: async (api, owner) => ({ id: await attestation(api, owner) }),
    write: (db, { id }, owner) => recordObservedExecutions(db, CHAIN, [execution(id, owner, true)]),
    events: account('attestation.executed', 'attestation'),
  },
  {
    name: 'promoteFinal, an execution',
    prepare: seenExecution,
    write: (db) => promoteFinal(db, CHAIN, block),
    events: account('attestation.executed', 'attestation'),
  },
  {
    name: 'rewindChain, an execution within its expiry and grace',
    prepare: seenExecution,
    write: (db) => rewindChain(db, { chain: CHAIN, ancestor: block - 1, settlementGraceMs: GRACE_MS, now: MONDAY_10AM + 10_000 }),
    events: account('attestation.reopened', 'attestation'),
  },
  {
    name: 'rewindChain, an execution past its expiry and grace',
    prepare: seenExecution,
    write: (db) => rewindChain(db, { chain: CHAIN, ancestor: block - 1, settlementGraceMs: GRACE_MS, now: MONDAY_10AM + 86_400_000 }),
    events: account('attestation.expired', 'attestation'),
  },
  {
    name: 'storeAttestationsAndCommit, an off-hours attestation lapsed when the next is stored (POST /v1/attestations)',
    prepare: async (api, owner) => ({ id: await attestation(api, owner, owner.offhoursAt, 'SPYon') }),
    write: async (_db, _prepared, owner, api) => attestation(api, owner, owner.offhoursAt + 3_600_000, 'SPYon'),
    events: account('attestation.expired', 'attestation'),
    rollback: false,
  },
  {
    name: 'recordObservedRedemptions, a burn seen (its partner request has no client yet)',
    prepare: async () => ({ id: '' }),
    write: observedRedemption(false),
    events: account('redemption.awaiting_finality', 'redemption'),
  },
  {
    name: 'recordObservedRedemptions, a burn already final',
    prepare: async () => ({ id: '' }),
    write: observedRedemption(true),
    events: account('redemption.pending', 'redemption'),
  },
  {
    name: 'promoteFinal, a burn',
    prepare: (api, owner) => seenRedemption(api.db, owner),
    write: (db) => promoteFinal(db, CHAIN, block),
    events: account('redemption.pending', 'redemption'),
  },
  {
    name: 'rewindChain, a burn not final (its partner request cancelled has no client)',
    prepare: (api, owner) => seenRedemption(api.db, owner),
    write: (db) => rewindChain(db, { chain: CHAIN, ancestor: block - 1, settlementGraceMs: GRACE_MS, now: MONDAY_10AM + 10_000 }),
    events: account('redemption.cancelled', 'redemption'),
  },
  {
    name: 'recordRedemption (the redemption workflow records the burn pending)',
    prepare: async () => ({ id: '' }),
    write: async (db, prepared, owner) => {
      const log = redemption(owner, true);
      prepared.id = log.redemptionId;
      const { redemptionId, txHash, logIndex, blockNumber, blockTime, wallet, userId, token, symbol, amount, usdNotional } = log;
      return recordRedemption(db, { redemptionId, chain: CHAIN, txHash, logIndex, blockNumber, blockTime, wallet, userId, token, symbol, amount, usdNotional });
    },
    events: account('redemption.pending', 'redemption'),
  },
  {
    name: 'insertPartnerRedemption with a client',
    prepare: (api, owner) => finalRedemption(api.db, owner),
    write: (db, { id }, owner) => insertPartnerRedemption(db, partnerRedemptionOf(id, owner.accountId)),
    events: account('partner_request.pending', 'partner_request'),
  },
  {
    name: 'insertPartnerRedemption without a client: held for review, the burn following',
    prepare: (api, owner) => finalRedemption(api.db, owner),
    write: (db, { id }) => insertPartnerRedemption(db, partnerRedemptionOf(id, null)),
    events: ({ id }, owner) => [
      { type: 'review.partner_request', accountId: null, resource: { kind: 'partner_request', id } },
      { type: 'redemption.needs_review', accountId: owner.accountId, resource: { kind: 'redemption', id } },
    ],
  },
  {
    name: 'insertPartnerMint',
    prepare: async () => ({ id: '' }),
    write: async (db, prepared, owner) => {
      prepared.id = (await partnerMint(db, owner)).id;
    },
    events: account('partner_request.created', 'partner_request'),
  },
  ...UPDATES.map(
    ([from, to, kind]): EmissionCase => ({
      name: `updatePartnerRequest, a ${kind} ${from} → ${to}`,
      prepare: (api, owner) => (kind === 'mint' ? partnerMint(api.db, owner, from) : partnerRedemption(api.db, owner, from)),
      write: (db, { id }) => updatePartnerRequest(db, id, { state: to, reason: to === 'rejected' ? 'refused by an operator' : undefined }, [from]),
      events: ({ id }, owner) => [
        { type: `partner_request.${to}` as WebhookEventType, accountId: owner.accountId, resource: { kind: 'partner_request', id } },
        ...(kind === 'redeem' ? [{ type: `redemption.${to}` as WebhookEventType, accountId: owner.accountId, resource: { kind: 'redemption' as const, id } }] : []),
      ],
    }),
  ),
  {
    name: 'updatePartnerRequest, a redemption pending → needs_review (the partner workflow)',
    prepare: (api, owner) => partnerRedemption(api.db, owner),
    write: (db, { id }) => updatePartnerRequest(db, id, { state: 'needs_review', reason: 'the broker refused the delivery' }, ['pending']),
    events: ({ id }, owner) => [
      { type: 'partner_request.needs_review', accountId: owner.accountId, resource: { kind: 'partner_request', id } },
      { type: 'review.partner_request', accountId: null, resource: { kind: 'partner_request', id } },
      { type: 'redemption.needs_review', accountId: owner.accountId, resource: { kind: 'redemption', id } },
    ],
  },
  {
    name: 'recordHedgeOutcome, an order the broker rejected for good',
    prepare: (api) => pendingHedgeOrder(api.db),
    write: (db, { id }) =>
      recordHedgeOutcome(db as Database, {
        batchId: id.replace(/-buy$/, ''), side: 'buy', state: 'review', brokerOrderId: 'broker-1', filledQty: '0', filledAvgPrice: null, reason: 'asset not tradable', filledAt: null,
      }),
    events: ({ id }) => [{ type: 'review.hedge_order', accountId: null, resource: { kind: 'hedge_order', id } }],
    rollback: false,
  },
  {
    name: 'applyReservePauses, an asset short',
    prepare: async (api) => {
      await applyReservePauses(api.db, [], MONDAY_10AM);
      return { id: 'AAPLon' };
    },
    write: (db, { id }) => applyReservePauses(db, [{ symbol: id, shortfall: '1.250000', reason: 'shares held below the tokens' }], MONDAY_10AM),
    events: ({ id }) => [{ type: 'reserves.short', accountId: null, resource: { kind: 'asset', id } }],
  },
  {
    name: 'applyReservePauses, an asset covered again',
    prepare: async (api) => {
      await applyReservePauses(api.db, [{ symbol: 'MSFTon', shortfall: '3', reason: 'shares held below the tokens' }], MONDAY_10AM);
      return { id: 'MSFTon', pauseBefore: (await listReservePauses(api.db)).find((pause) => pause.symbol === 'MSFTon') };
    },
    write: (db) => applyReservePauses(db, [], MONDAY_10AM + 60_000),
    events: ({ id }) => [{ type: 'reserves.covered', accountId: null, resource: { kind: 'asset', id } }],
  },
];
