/**
 * Webhooks as an integrator receives them, end to end: an account registers an endpoint through `POST /v1/webhooks`,
 * then a partner mint settles, a redemption is burnt on chain and delivered back, and an attestation expires
 * unexecuted, each driven by the product's own workflows on a local chain with the brokerage sandbox (the partner
 * stack). The receiver verifies every signature with the secret it was shown once, and it misbehaves for every event:
 * the first request fails (500), the second is slow past the sender's deadline (it processes the event, but too late
 * for the sender, who sends it again), the third is answered at once. After deduplication by `webhook-id` it has every
 * event the product recorded for the account exactly once, each resource's events in their order, and each
 * resource's story complete.
 */
import { maxUint256, parseEventLogs } from 'viem';
import { issuerAbi, stockTokenAbi } from '../../contracts/abi';
import type { WebhookEnvelope, WebhookEventType } from '../../domain/webhook-events';
import { brokerPost, ISSUER_ID, startPartnerStack, WALLET_INDEX, type PartnerStack } from '../partner/support';
import { eventually } from '../support/eventually';
import { startTestReceiver, type Arrival, type ReceiverAnswer, type TestReceiver } from '../support/webhook-receiver';

jest.setTimeout(300_000);

const EVENTS: WebhookEventType[] = [
  'attestation.executing',
  'attestation.executed',
  'attestation.expired',
  'redemption.awaiting_finality',
  'redemption.pending',
  'redemption.delivering',
  'redemption.completed',
  'redemption.cancelled',
  'partner_request.created',
  'partner_request.confirmed',
  'partner_request.minted',
  'partner_request.awaiting_finality',
  'partner_request.pending',
  'partner_request.delivering',
  'partner_request.completed',
];

/** Every event's first request fails, its second comes back after the sender's 2 s deadline, the rest are answered. */
const misbehaving = (arrival: Arrival): ReceiverAnswer =>
  arrival.attempt === 1 ? { status: 500 } : arrival.attempt === 2 ? { status: 200, delayMs: 3_000 } : { status: 200 };

let stack: PartnerStack;
let receiver: TestReceiver;
let secret = '';

beforeAll(async () => {
  stack = await startPartnerStack({ settlementGraceMs: 1_000 });
  receiver = await startTestReceiver(() => secret, misbehaving);
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

const write = () => stack.api.keys.write;

/** The account's events as the product recorded them, by webhook id. */
async function recordedEvents(): Promise<Map<string, { type: string; resource: string; sequence: string }>> {
  const { rows } = await stack.database.db.query<{ seq: string; type: string; resource: string }>(
    `SELECT seq::text, type, resource_kind || ':' || resource_id AS resource FROM webhook_events WHERE account_id = $1 ORDER BY seq`,
    [stack.clientId],
  );
  return new Map(rows.map((row) => [`evt_${row.seq}`, { type: row.type, resource: row.resource, sequence: row.seq }]));
}

/** What the receiver kept: each event once (the first arrival it answered 2xx), in the order it accepted them. */
function deduplicated(): WebhookEnvelope[] {
  const kept = new Map<string, Arrival>();
  for (const arrival of receiver.arrivals) if (arrival.acceptedAt !== null && !kept.has(arrival.id)) kept.set(arrival.id, arrival);
  return [...kept.values()].sort((a, b) => a.acceptedAt! - b.acceptedAt!).map((arrival) => arrival.envelope);
}

test('every event of a partner mint, a redemption and an expiry reaches a failing, slow, recovering receiver once after dedup, in order per resource', async () => {
  const registered = await stack.api.http
    .post('/v1/webhooks')
    .set('x-api-key', write())
    .send({ url: receiver.url, events: EVENTS, description: 'end to end' });
  expect(registered.status).toBe(201);
  secret = registered.body.secret;

  // An attestation nobody executes, valid 5 s: expired then, plus the 1 s settlement grace. No feed runs in this stack:
  // the seeded price is made current (SPYon trades in every session, so this holds on any day).
  await stack.database.db.query(`UPDATE latest_prices SET observed_at = $1 WHERE symbol = 'SPYon'`, [Date.now()]);
  await stack.database.db.query(`UPDATE asset_pricing SET short_ttl_seconds = 5 WHERE symbol = 'SPYon'`);
  stack.api.app.services.forget('prices');
  const attestation = await stack.api.http
    .post('/v1/attestations')
    .set('x-api-key', write())
    .send({ symbol: 'SPYon', side: 'buy', tokenAmount: '0.5', duration: 'short', chainId: 'ethereum-1' });
  expect([attestation.status, attestation.body.code]).toEqual([200, undefined]);

  // A partner mint through the broker, settled.
  const minted = await brokerPost(
    stack,
    `/v1/accounts/${stack.accountId}/tokenization/mint`,
    { underlying_symbol: 'AAPL', qty: '2', issuer: ISSUER_ID, network: 'ethereum', wallet_address: stack.wallet },
    'webhooks-end-to-end',
  );
  expect(minted.status).toBe(201);
  const mintRequest = await eventually(async () => {
    const { rows } = await stack.database.db.query<{ id: string; state: string }>(
      `SELECT issuer_request_id AS id, state FROM partner_requests WHERE tokenization_request_id = $1`,
      [minted.body.tokenization_request_id],
    );
    expect(rows[0]?.state).toBe('completed');
    return rows[0]!.id;
  }, 90_000);

  // Half the tokens burnt from the client's wallet, the shares delivered back.
  const wallet = stack.chain.walletOf(WALLET_INDEX);
  const token = stack.tokens.AAPLon!;
  await stack.chain.client.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: token, abi: stockTokenAbi, functionName: 'approve', args: [stack.chain.deployment.issuer, maxUint256] }),
  });
  const balance = await stack.chain.client.readContract({ address: token, abi: stockTokenAbi, functionName: 'balanceOf', args: [stack.wallet] });
  const burn = await stack.chain.client.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: stack.chain.deployment.issuer, abi: issuerAbi, functionName: 'redeem', args: [token, balance / 2n] }),
  });
  const [redeemed] = parseEventLogs({ abi: issuerAbi, eventName: 'IssuerRedeem', logs: burn.logs });
  const redemption = `redemption-1-${burn.transactionHash.toLowerCase()}-${redeemed!.logIndex}`;

  // Every recorded event kept once: the mint's, the redemption's (and its partner request's) and the expiry.
  const kept = await eventually(async () => {
    const recorded = await recordedEvents();
    const types = [...recorded.values()].map((event) => `${event.resource} ${event.type}`);
    expect(types).toEqual(
      expect.arrayContaining([
        `partner_request:${mintRequest} partner_request.completed`,
        `redemption:${redemption} redemption.completed`,
        `partner_request:${redemption} partner_request.completed`,
        `attestation:${attestation.body.attestationId} attestation.expired`,
      ]),
    );
    const envelopes = deduplicated();
    expect(envelopes.map((envelope) => envelope.id).sort()).toEqual([...recorded.keys()].sort());
    return { recorded, envelopes };
  }, 180_000);

  // Each arrival was signed with the secret shown at registration; each event was failed, then slow, then answered.
  expect(receiver.arrivals.every((arrival) => arrival.verified)).toBe(true);
  for (const id of kept.recorded.keys()) expect(receiver.arrivals.filter((arrival) => arrival.id === id).length).toBeGreaterThanOrEqual(3);

  // Per resource, in the order of their sequence, and each story from its start to its end.
  const byResource = new Map<string, WebhookEnvelope[]>();
  for (const envelope of kept.envelopes) {
    const key = `${envelope.resource.kind}:${envelope.resource.id}`;
    byResource.set(key, [...(byResource.get(key) ?? []), envelope]);
  }
  for (const envelopes of byResource.values()) {
    const sequences = envelopes.map((envelope) => BigInt(envelope.sequence));
    expect(sequences).toEqual([...sequences].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  const story = (key: string) => byResource.get(key)!.map((envelope) => envelope.type);
  expect(story(`partner_request:${mintRequest}`)).toEqual(expect.arrayContaining(['partner_request.created', 'partner_request.minted']));
  expect(story(`partner_request:${mintRequest}`)[0]).toBe('partner_request.created');
  expect(story(`partner_request:${mintRequest}`).at(-1)).toBe('partner_request.completed');
  expect(story(`redemption:${redemption}`)[0]).toBe('redemption.awaiting_finality');
  expect(story(`redemption:${redemption}`).at(-1)).toBe('redemption.completed');
  expect(story(`attestation:${attestation.body.attestationId}`)).toEqual(['attestation.expired']);
  // The data is the resource as it stood: the last event of the redemption is its completed state.
  expect(byResource.get(`redemption:${redemption}`)!.at(-1)!.data).toMatchObject({ redemptionId: redemption, state: 'completed', txHash: burn.transactionHash });
});
