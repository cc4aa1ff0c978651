/**
 * An attestation end to end: created through the API, its lifecycle workflow started by the worker from the outbox,
 * executed by a signal (as the chain watcher will send), and its state read back through the API.
 */
import { attestationExecutedSignal, attestationStateQuery } from '../../temporal/messages';
import { attestationWorkflowId } from '../../temporal/workflow-ids';
import type { TestApi } from '../support/api';
import { startTestStack, type TestStack } from '../support/stack';
import { eventually, type ProductTemporal } from '../support/temporal';

let stack: TestStack;
let temporal: ProductTemporal;
let api: TestApi;

beforeAll(async () => {
  stack = await startTestStack();
  ({ temporal, api } = stack);
});
afterAll(() => stack?.close());

test('attestation-<id> starts for an attestation created through the API; an execution signal makes it executed in the database and the API', async () => {
  // Trade at the real current time when a session for SPYon (tradable around the clock) is always open.
  const now = Date.now();
  await api.tradeAt(now);
  const created = await api.http
    .post('/v1/attestations')
    .set('x-api-key', api.keys.write)
    .send({ symbol: 'SPYon', side: 'buy', tokenAmount: '2', duration: 'long' });
  expect(created.status).toBe(200);
  const { attestationId } = created.body;

  const handle = temporal.client.workflow.getHandle(attestationWorkflowId(attestationId));
  await eventually(async () => expect((await handle.query(attestationStateQuery)).state).toBe('outstanding'));
  await handle.signal(attestationExecutedSignal, { txHash: `0x${'ab'.repeat(32)}`, executedAt: now + 1_000 });
  const result = await handle.result();
  expect(result).toMatchObject({ attestationId, state: 'executed', txHash: `0x${'ab'.repeat(32)}` });

  const read = await api.http.get(`/v1/attestations/${attestationId}`).set('x-api-key', api.keys.write);
  expect(read.body).toMatchObject({ attestationId, state: 'executed', executionTxHash: `0x${'ab'.repeat(32)}` });
});

test('an idempotent retry does not start a second workflow run', async () => {
  const now = Date.now();
  await api.tradeAt(now);
  const send = () =>
    api.http.post('/v1/attestations').set('x-api-key', api.keys.write).set('Idempotency-Key', 'retry-1').send({ symbol: 'SPYon', side: 'sell', tokenAmount: '1' });
  const first = (await send()).body;
  const handle = temporal.client.workflow.getHandle(attestationWorkflowId(first.attestationId));
  const { runId } = await eventually(() => handle.describe());
  await send();
  expect((await handle.describe()).runId).toBe(runId);
});
