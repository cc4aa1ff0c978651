/**
 * Attestation creation at concurrency 32. The floor: the route alone (validate, price, limits, insert with the
 * outbox row for its workflow, sign), no worker running. Then the same route while the product's worker, in its own
 * process with the in-memory Temporal service, starts every attestation's workflow from the outbox — at saturation, and
 * how long after it the last of its workflows was started; then, with none waiting and the worker at rest, at a
 * constant offered rate. Load is spread over 32 accounts, as many users would send it; limits are raised so nothing
 * is refused. BENCH_WEBHOOK_ENDPOINTS=N gives N of the accounts a webhook endpoint listing every attestation event, so
 * that the triggers of migration 020 write events and deliveries for each change of their attestations' states.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPool, type Database } from '../db/pool';
import { createApiKey } from '../db/queries/api-keys';
import { insertWebhookEndpoint } from '../db/queries/webhooks';
import { WEBHOOK_EVENT_TYPE_NAMES } from '../domain/webhook-events';
import { createSecretBox, newWebhookMasterKey } from '../webhooks/secret-box';
import { newWebhookSecret } from '../webhooks/signing';
import { nextSession, sessionAt, type Session } from '../domain/calendar';
import { formatResults, load, loadAtRate, loadGenerator, type LoadResult } from './load';

const CONNECTIONS = 32;
const ACCOUNTS = 32;
/** The fixed offered load (requests per second) whose p99 is measured beside saturation. */
const OFFERED_RATE = 300;
/** Trades in every session, so the benchmark runs on any day. */
const SYMBOL = 'SPYon';

function child<T>(script: string, env: Record<string, string>): { process: ChildProcess; ready: Promise<T> } {
  const process_ = fork(path.join(__dirname, script), [], {
    env: { ...process.env, ...env },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = new Promise<T>((resolve, reject) => {
    process_.once('message', (message) => resolve(message as T));
    process_.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { process: process_, ready };
}

/** Ends a child and waits for it to be gone (killed outright if it lingers), so the next phase starts alone. */
async function stop(process_: ChildProcess): Promise<void> {
  if (process_.exitCode !== null || process_.signalCode !== null) return;
  const exited = new Promise((resolve) => process_.once('exit', resolve));
  process_.kill('SIGTERM');
  const timer = setTimeout(() => process_.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

export interface AttestationBench {
  session: Session;
  /** The floor, the route with the worker starting workflows at saturation, then at OFFERED_RATE. */
  results: [LoadResult, LoadResult, LoadResult];
  attestations: number;
  /** Attestations still waiting for their workflow when the saturating load ended. */
  backlog: number;
  /** From the end of the saturating load to the last of its attestations' workflows started (the outbox empty). */
  drainMs: number;
  /** From the end of the saturating load to the worker at rest (`atRest`), its workflows' first tasks done. */
  restMs: number;
}

async function waitingForWorkflows(db: Database): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM attestation_workflow_starts')).rows[0]!.n;
}

/** Waits until every stored attestation's workflow is started (the outbox empty); answers how long that took. */
async function drained(db: Database): Promise<number> {
  const startedAt = performance.now();
  while ((await waitingForWorkflows(db)) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  return performance.now() - startedAt;
}

/** CPU time process `pid` has used (user and system, in clock ticks), from /proc; undefined where there is none. */
function cpuTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/**
 * Waits until process `pid` has rested for half a second (at most 2 clock ticks, 20 ms at Linux's 100 a second; 30 s
 * at most; at once where there is no /proc): a worker that started many workflows is done with their first tasks.
 */
async function atRest(pid: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  let before = cpuTicks(pid);
  while (before !== undefined && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = cpuTicks(pid);
    if (after === undefined || after - before <= 2) return;
    before = after;
  }
}

/** Milliseconds to add to now to be half an hour into the next (or current) `session`. */
function offsetInto(session: Session): number {
  const now = Date.now();
  if (sessionAt(now) === session) return 0;
  const next = nextSession(now, (candidate) => candidate === session);
  if (!next) throw new Error(`no ${session} session within 30 days`);
  return next.start + 30 * 60_000 - now;
}

/**
 * Measures in `session` (the regular session takes per-account locks; off-hours adds the global lock of
 * the exposure caps). The server's clock is shifted into that session when it is not the current one.
 */
export async function benchAttestations(databaseUrl: string, session: Session, seconds = 10): Promise<AttestationBench> {
  const db = createPool(databaseUrl, 4);
  await db.query('UPDATE session_limits SET tradable = true, max_attestation_count = 1000000000, max_active_notional_value = 1e15, max_session_notional_value = 1e15');
  const keys: string[] = [];
  const secrets = createSecretBox(newWebhookMasterKey());
  for (let index = 0; index < ACCOUNTS; index += 1) {
    const { secret, key } = await createApiKey(db, { name: `bench trader ${index}`, scope: 'write', rateLimitPerSecond: 1_000_000, rateLimitBurst: 1_000_000 });
    keys.push(secret);
    // BENCH_WEBHOOK_ENDPOINTS: that many of the accounts subscribe to every attestation event (the triggers' cost).
    if (index < Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 0)) {
      const endpointId = `wh_${randomBytes(8).toString('hex')}`;
      await insertWebhookEndpoint(db, {
        endpointId, accountId: key.accountId!, audience: 'account', url: 'https://receiver.example/hooks', description: null,
        eventTypes: WEBHOOK_EVENT_TYPE_NAMES.filter((type) => type.startsWith('attestation.')), secret: secrets.seal(endpointId, newWebhookSecret()),
      });
    }
  }

  const server = child<{ url: string }>('attestation-server.ts', {
    BENCH_DATABASE_URL: databaseUrl,
    BENCH_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'bench-signers-')),
    BENCH_CLOCK_OFFSET_MS: String(offsetInto(session)),
  });
  const processes = [server.process];
  try {
    const { url } = await server.ready;
    const request = {
      seconds,
      connections: CONNECTIONS,
      method: 'POST' as const,
      url: `${url}/v1/attestations`,
      body: JSON.stringify({ symbol: SYMBOL, side: 'buy', tokenAmount: '0.5' }),
      headerSets: keys.map((key) => ({ 'x-api-key': key, 'content-type': 'application/json' })),
    };
    await load({ ...request, name: 'warm-up', seconds: 2 });
    const floor = await load({ ...request, name: 'floor: validate + price + limits + insert + sign' });
    // The floor's attestations need no workflow: set aside before the worker (whose recovery would start them) runs.
    await db.query(`UPDATE attestations SET state = 'expired' WHERE state = 'outstanding'`);
    await db.query('DELETE FROM attestation_workflow_starts');
    const worker = child<{ address: string }>('temporal-worker.ts', { BENCH_DATABASE_URL: databaseUrl });
    processes.push(worker.process);
    await worker.ready;
    await load({ ...request, name: 'warm-up', seconds: 2 });
    const real = await load({ ...request, name: 'POST /v1/attestations, the worker starting each workflow' });
    const loadEnded = performance.now();
    const backlog = await waitingForWorkflows(db);
    const drainMs = await drained(db);
    // The constant rate starts once the saturation's workflows are all started and the worker is done with their first
    // tasks, so that its tail is its own.
    await atRest(worker.process.pid!);
    const restMs = performance.now() - loadEnded;
    // Brings the pool's connections back (idle ones close after 10 s) before the measured run, at the measured rate.
    await loadAtRate({ ...request, name: 'warm-up', rate: OFFERED_RATE, seconds: 2 });
    const offered = await loadAtRate({ ...request, name: `  same, at a constant ${OFFERED_RATE} req/s offered`, rate: OFFERED_RATE });
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM attestations WHERE session = $1', [session]);
    return { session, results: [floor, real, offered], attestations: rows[0]!.n, backlog, drainMs, restMs };
  } finally {
    await Promise.all(processes.map(stop));
    await db.end();
  }
}

/** The figures as bench/run.ts prints them. */
export function formatAttestations(bench: AttestationBench): string[] {
  const [floor, real, offered] = bench.results;
  return [
    `Attestations in the ${bench.session} session, ${CONNECTIONS} connections over ${ACCOUNTS} accounts, load from ${loadGenerator}`,
    formatResults(bench.results),
    `  with workflow / floor throughput: ${(real.requestsPerSecond / floor.requestsPerSecond).toFixed(2)} (goal ≥ 0.80)`,
    `  p99 at a constant ${OFFERED_RATE} req/s offered: ${offered.p99Ms} ms (goal ≤ 50 ms)`,
    `  waiting for their workflow when the saturating load ended: ${bench.backlog}; all started ${(bench.drainMs / 1000).toFixed(1)} s after it, the worker at rest ${(bench.restMs / 1000).toFixed(1)} s after it; attestations stored: ${bench.attestations}`,
  ];
}
