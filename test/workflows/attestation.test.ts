/**
 * The attestation lifecycle workflow on the real worker against the in-memory service, with virtual time:
 * expiry, execution (in time, twice, too late, during the grace), an execution seen on chain before it is final
 * (kept alive past expiry, then executed or, orphaned, expired or outstanding again), recovery after a restart, and
 * the idempotence of its activities. Every case checks the attestation's row in PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createAttestationActivities } from '../../activities/attestations';
import { recoverAttestationWorkflows, startAttestationWorkflow, startStoredAttestationWorkflows } from '../../attestations/lifecycle-workflows';
import {
  attestationExecutedSignal,
  attestationExecutionOrphanedSignal,
  attestationExecutionSeenSignal,
  attestationFailureTypes,
  attestationStateQuery,
  type AttestationWorkflowState,
} from '../../temporal/messages';
import { attestationWorkflowId } from '../../temporal/workflow-ids';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { recordProductHistory, startProductTemporal, type ProductTemporal } from '../support/temporal';

let database: TestDb;
let temporal: ProductTemporal;
let symbol: string;

const ACCOUNT_ID = 'acct-attestation-workflow-test';
const TTL_MS = 60_000;
const GRACE_MS = 30_000;

/** Cases that need virtual time run only against the in-memory service. */
const withTimeSkipping = process.env.TEMPORAL_ADDRESS ? test.skip : test;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  temporal = await startProductTemporal(createActivities({ db: database.db }));
  await database.db.query(`INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, 'attestation workflow test')`, [
    ACCOUNT_ID,
    `0x${'ab'.repeat(32)}`,
  ]);
  const { rows } = await database.db.query<{ symbol: string }>(`SELECT symbol FROM assets ORDER BY symbol LIMIT 1`);
  symbol = rows[0]!.symbol;
});
afterAll(async () => {
  await temporal?.teardown();
  await database?.drop();
});

/** The service's clock: real time plus whatever time skipping added so far. */
async function serviceNow(): Promise<number> {
  return temporal.timeSkipping ? (await temporal.timeSkipping.currentTime()).getTime() : Date.now();
}

function txHash(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}

/** Inserts an outstanding attestation expiring at `expiresAt` and returns its id. */
async function insertAttestation(expiresAt: number): Promise<string> {
  const attestationId = BigInt(`0x${randomBytes(16).toString('hex')}`).toString();
  const createdAt = expiresAt - TTL_MS;
  await database.db.query(
    `INSERT INTO attestations (attestation_id, account_id, user_id, symbol, chain, side, duration, token_amount, price, notional,
       session, session_started_at, created_at, expires_at, asset_address, signature, additional_data, response)
     VALUES ($1, $2, $3, $4, 'ethereum-1', 'buy', 'short', '1.5', '200.25', '300.375', 'regular', $5, $5, $6,
       '0x0000000000000000000000000000000000000001', 'c2lnbmF0dXJl', '0x', '{}')`,
    [attestationId, ACCOUNT_ID, `0x${'ab'.repeat(32)}`, symbol, createdAt, expiresAt],
  );
  return attestationId;
}

interface AttestationRow {
  state: string;
  txHash: string | null;
  stateChangedAt: number | null;
}

async function attestationRow(attestationId: string): Promise<AttestationRow> {
  const { rows } = await database.db.query<AttestationRow>(
    `SELECT state, execution_tx_hash AS "txHash", state_changed_at AS "stateChangedAt" FROM attestations WHERE attestation_id = $1`,
    [attestationId],
  );
  return rows[0]!;
}

function start(attestationId: string, expiresAt: number) {
  return startAttestationWorkflow(temporal.client, { attestationId, expiresAt, taskQueue: temporal.taskQueue, settlementGraceMs: GRACE_MS });
}

function settledState(attestationId: string, expiresAt: number, state: AttestationWorkflowState['state'], hash: string | null): AttestationWorkflowState {
  return { attestationId, state, expiresAt, txHash: hash };
}

withTimeSkipping('without an execution the attestation expires once expiry and grace have passed', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const attestationId = await insertAttestation(expiresAt);
  const handle = await start(attestationId, expiresAt);
  expect(handle.workflowId).toBe(`attestation-${attestationId}`);

  expect(await handle.query(attestationStateQuery)).toEqual(settledState(attestationId, expiresAt, 'outstanding', null));
  await temporal.timeSkipping!.skip(TTL_MS + GRACE_MS + 1_000);

  expect(await handle.result()).toEqual(settledState(attestationId, expiresAt, 'expired', null));
  expect(await attestationRow(attestationId)).toEqual({ state: 'expired', txHash: null, stateChangedAt: expiresAt });
  expect(await handle.query(attestationStateQuery)).toEqual(settledState(attestationId, expiresAt, 'expired', null));
  await recordProductHistory('attestation-expired', handle);
});

test('an execution before expiry is recorded with its tx hash and block time', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const attestationId = await insertAttestation(expiresAt);
  const handle = await start(attestationId, expiresAt);
  const hash = txHash();
  const executedAt = expiresAt - TTL_MS / 2;

  await handle.signal(attestationExecutedSignal, { txHash: hash, executedAt });

  expect(await handle.result()).toEqual(settledState(attestationId, expiresAt, 'executed', hash));
  expect(await handle.query(attestationStateQuery)).toEqual(settledState(attestationId, expiresAt, 'executed', hash));
  expect(await attestationRow(attestationId)).toEqual({ state: 'executed', txHash: hash, stateChangedAt: executedAt });
  await recordProductHistory('attestation-executed', handle);
});

test('a second execution signal with another tx hash is ignored', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const attestationId = await insertAttestation(expiresAt);
  const handle = await start(attestationId, expiresAt);
  const first = txHash();

  await handle.signal(attestationExecutedSignal, { txHash: first, executedAt: expiresAt - 2_000 });
  await handle.signal(attestationExecutedSignal, { txHash: txHash(), executedAt: expiresAt - 1_000 });

  expect(await handle.result()).toEqual(settledState(attestationId, expiresAt, 'executed', first));
  expect(await attestationRow(attestationId)).toEqual({ state: 'executed', txHash: first, stateChangedAt: expiresAt - 2_000 });
});

withTimeSkipping('an execution signal dated after expiry is ignored and the attestation expires', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const attestationId = await insertAttestation(expiresAt);
  const handle = await start(attestationId, expiresAt);

  await handle.signal(attestationExecutedSignal, { txHash: txHash(), executedAt: expiresAt + 1 });
  expect(await handle.query(attestationStateQuery)).toEqual(settledState(attestationId, expiresAt, 'outstanding', null));
  await temporal.timeSkipping!.skip(TTL_MS + GRACE_MS + 1_000);

  expect(await handle.result()).toEqual(settledState(attestationId, expiresAt, 'expired', null));
  expect(await attestationRow(attestationId)).toEqual({ state: 'expired', txHash: null, stateChangedAt: expiresAt });
});

withTimeSkipping('an execution before expiry reported during the grace period is still recorded', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const attestationId = await insertAttestation(expiresAt);
  const handle = await start(attestationId, expiresAt);

  await temporal.timeSkipping!.skip(TTL_MS + GRACE_MS / 2);
  expect(await serviceNow()).toBeGreaterThan(expiresAt);
  expect(await handle.query(attestationStateQuery)).toEqual(settledState(attestationId, expiresAt, 'outstanding', null));
  const hash = txHash();
  await handle.signal(attestationExecutedSignal, { txHash: hash, executedAt: expiresAt });

  expect(await handle.result()).toEqual(settledState(attestationId, expiresAt, 'executed', hash));
  expect(await attestationRow(attestationId)).toEqual({ state: 'executed', txHash: hash, stateChangedAt: expiresAt });
});

/** What the chain watcher writes when it sees an execution (`executing`), and then tells the workflow. */
async function seeExecution(attestationId: string, hash: string, executedAt: number) {
  const seen = { txHash: hash, blockNumber: 7, blockHash: txHash(), logIndex: 0, executedAt };
  await database.db.query(
    `UPDATE attestations SET state = 'executing', execution_tx_hash = $2, execution_block_number = $3, execution_block_hash = $4, state_changed_at = $5
      WHERE attestation_id = $1`,
    [attestationId, hash, seen.blockNumber, seen.blockHash, executedAt],
  );
  return seen;
}

withTimeSkipping('an execution seen on chain keeps the attestation alive past expiry and grace; final, it is executed', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const attestationId = await insertAttestation(expiresAt);
  const handle = await start(attestationId, expiresAt);
  const hash = txHash();
  const seen = await seeExecution(attestationId, hash, expiresAt - 1_000);
  await handle.signal(attestationExecutionSeenSignal, seen);
  expect(await handle.query(attestationStateQuery)).toEqual(settledState(attestationId, expiresAt, 'executing', hash));

  await temporal.timeSkipping!.skip(TTL_MS + GRACE_MS + 1_000);
  expect(await handle.query(attestationStateQuery)).toEqual(settledState(attestationId, expiresAt, 'executing', hash));
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect(await attestationRow(attestationId)).toEqual({ state: 'executing', txHash: hash, stateChangedAt: expiresAt - 1_000 });

  // Final: the watcher records `executed`, then signals it.
  await database.db.query(`UPDATE attestations SET state = 'executed' WHERE attestation_id = $1`, [attestationId]);
  await handle.signal(attestationExecutedSignal, { txHash: hash, executedAt: expiresAt - 1_000 });
  expect(await handle.result()).toEqual(settledState(attestationId, expiresAt, 'executed', hash));
  expect(await attestationRow(attestationId)).toEqual({ state: 'executed', txHash: hash, stateChangedAt: expiresAt - 1_000 });
  await recordProductHistory('attestation-executing-then-executed', handle);
});

withTimeSkipping('an execution orphaned by a reorganisation after expiry and grace: the attestation expires', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const attestationId = await insertAttestation(expiresAt);
  const handle = await start(attestationId, expiresAt);
  const hash = txHash();
  const seen = await seeExecution(attestationId, hash, expiresAt - 1_000);
  await handle.signal(attestationExecutionSeenSignal, seen);
  await temporal.timeSkipping!.skip(TTL_MS + GRACE_MS + 1_000);
  expect((await handle.describe()).status.name).toBe('RUNNING');

  // The watcher's rewind: past expiry and grace the attestation is expired; then it tells the workflow.
  await database.db.query(
    `UPDATE attestations SET state = 'expired', state_changed_at = expires_at, execution_tx_hash = NULL, execution_block_number = NULL, execution_block_hash = NULL
      WHERE attestation_id = $1`,
    [attestationId],
  );
  await handle.signal(attestationExecutionOrphanedSignal, seen);
  expect(await handle.result()).toEqual(settledState(attestationId, expiresAt, 'expired', null));
  expect(await attestationRow(attestationId)).toEqual({ state: 'expired', txHash: null, stateChangedAt: expiresAt });
});

test('an orphaned execution before expiry: outstanding again, and another transaction executing the same quote is no conflict', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const attestationId = await insertAttestation(expiresAt);
  const handle = await start(attestationId, expiresAt);
  const first = txHash();
  const seen = await seeExecution(attestationId, first, expiresAt - 2_000);
  await handle.signal(attestationExecutionSeenSignal, seen);
  await handle.signal(attestationExecutionOrphanedSignal, seen);
  expect(await handle.query(attestationStateQuery)).toEqual(settledState(attestationId, expiresAt, 'outstanding', null));

  const second = txHash();
  await seeExecution(attestationId, second, expiresAt - 1_000);
  await database.db.query(`UPDATE attestations SET state = 'executed' WHERE attestation_id = $1`, [attestationId]);
  await handle.signal(attestationExecutedSignal, { txHash: second, executedAt: expiresAt - 1_000 });
  expect(await handle.result()).toEqual(settledState(attestationId, expiresAt, 'executed', second));
});

withTimeSkipping('after a restart, recovery gives every outstanding attestation one workflow, and they expire', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const attestationIds = [await insertAttestation(expiresAt), await insertAttestation(expiresAt)];
  await temporal.stopWorker();

  const recover = async () =>
    recoverAttestationWorkflows({ db: database.db, client: temporal.client, taskQueue: temporal.taskQueue, settlementGraceMs: GRACE_MS, now: await serviceNow() });
  const runIds = async () =>
    Promise.all(attestationIds.map(async (id) => (await temporal.client.workflow.getHandle(attestationWorkflowId(id)).describe()).runId));
  expect(await recover()).toBe(2);
  const firstRuns = await runIds();
  // A second recovery finds the running workflows instead of starting new ones.
  expect(await recover()).toBe(2);
  expect(await runIds()).toEqual(firstRuns);

  await temporal.startWorker(createActivities({ db: database.db }));
  await temporal.timeSkipping!.skip(TTL_MS + GRACE_MS + 1_000);

  for (const attestationId of attestationIds) {
    const result = await temporal.client.workflow.getHandle(attestationWorkflowId(attestationId)).result();
    expect(result).toEqual(settledState(attestationId, expiresAt, 'expired', null));
    expect(await attestationRow(attestationId)).toEqual({ state: 'expired', txHash: null, stateChangedAt: expiresAt });
  }
  expect(await recover()).toBe(0);
});

test('recovery replaces a closed run of an attestation that is still outstanding', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const attestationId = await insertAttestation(expiresAt);
  const first = await start(attestationId, expiresAt);
  expect((await first.query(attestationStateQuery)).state).toBe('outstanding');
  await first.terminate('lost');

  const now = await serviceNow();
  expect(await recoverAttestationWorkflows({ db: database.db, client: temporal.client, taskQueue: temporal.taskQueue, now })).toBe(1);
  const current = temporal.client.workflow.getHandle(attestationWorkflowId(attestationId));
  const description = await current.describe();
  expect(description.status.name).toBe('RUNNING');
  expect(description.runId).not.toBe(first.firstExecutionRunId);

  const hash = txHash();
  await current.signal(attestationExecutedSignal, { txHash: hash, executedAt: expiresAt - 1 });
  expect(await current.result()).toEqual(settledState(attestationId, expiresAt, 'executed', hash));
  expect(await attestationRow(attestationId)).toEqual({ state: 'executed', txHash: hash, stateChangedAt: expiresAt - 1 });
});

test('the outbox: each stored attestation gets its workflow once, and a pass whose starts fail leaves the rows', async () => {
  const expiresAt = (await serviceNow()) + TTL_MS;
  const ids = [await insertAttestation(expiresAt), await insertAttestation(expiresAt)];
  await database.db.query('INSERT INTO attestation_workflow_starts (attestation_id) SELECT unnest($1::numeric[])', [ids]);
  const outbox = async () => (await database.db.query<{ id: string }>('SELECT attestation_id::text AS id FROM attestation_workflow_starts ORDER BY 1')).rows.map((row) => row.id);

  const closed = await Connection.connect({ address: temporal.address });
  await closed.close();
  await expect(startStoredAttestationWorkflows({ db: database.db, client: new Client({ connection: closed }), taskQueue: temporal.taskQueue })).rejects.toThrow();
  expect(await outbox()).toEqual([...ids].sort());

  const starts = { db: database.db, client: temporal.client, taskQueue: temporal.taskQueue, settlementGraceMs: GRACE_MS };
  expect(await startStoredAttestationWorkflows(starts)).toBe(2);
  expect(await outbox()).toEqual([]);
  expect(await startStoredAttestationWorkflows(starts)).toBe(0);
  for (const attestationId of ids) {
    const handle = temporal.client.workflow.getHandle(attestationWorkflowId(attestationId));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await handle.query(attestationStateQuery)).toEqual(settledState(attestationId, expiresAt, 'outstanding', null));
  }
});

describe('lifecycle activities', () => {
  // Failures are expected below: only errors would be worth printing.
  const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const activities = () => createAttestationActivities({ db: database.db });

  test('expiring twice, then executing, leaves the first outcome', async () => {
    const { markAttestationExecuted, markAttestationExpired } = activities();
    const expiresAt = Date.now() - 1_000;
    const attestationId = await insertAttestation(expiresAt);
    const expired = { attestationId, state: 'expired', expiresAt, txHash: null, stateChangedAt: expiresAt };

    expect(await environment.run(markAttestationExpired, { attestationId })).toEqual(expired);
    expect(await environment.run(markAttestationExpired, { attestationId })).toEqual(expired);
    expect(await environment.run(markAttestationExecuted, { attestationId, txHash: txHash(), executedAt: expiresAt - 1 })).toEqual(expired);
    expect(await attestationRow(attestationId)).toEqual({ state: 'expired', txHash: null, stateChangedAt: expiresAt });
  });

  test('executing again with the same tx hash changes nothing; another tx hash is a non-retryable conflict', async () => {
    const { markAttestationExecuted, markAttestationExpired } = activities();
    const expiresAt = Date.now() + TTL_MS;
    const attestationId = await insertAttestation(expiresAt);
    const hash = txHash();
    const executed = { attestationId, state: 'executed', expiresAt, txHash: hash, stateChangedAt: expiresAt - 10 };

    expect(await environment.run(markAttestationExecuted, { attestationId, txHash: hash, executedAt: expiresAt - 10 })).toEqual(executed);
    expect(await environment.run(markAttestationExecuted, { attestationId, txHash: hash, executedAt: expiresAt - 5 })).toEqual(executed);
    expect(await environment.run(markAttestationExpired, { attestationId })).toEqual(executed);
    const conflict = environment.run(markAttestationExecuted, { attestationId, txHash: txHash(), executedAt: expiresAt - 10 });
    await expect(conflict).rejects.toBeInstanceOf(ApplicationFailure);
    await expect(conflict).rejects.toMatchObject({ type: attestationFailureTypes.executionConflict, nonRetryable: true });
    expect(await attestationRow(attestationId)).toEqual({ state: 'executed', txHash: hash, stateChangedAt: expiresAt - 10 });
  });

  test('an unknown attestation is a non-retryable failure', async () => {
    const { markAttestationExpired } = activities();
    await expect(environment.run(markAttestationExpired, { attestationId: '12345' })).rejects.toMatchObject({
      type: attestationFailureTypes.notFound,
      nonRetryable: true,
    });
  });
});
