/**
 * PostgreSQL killed under running processes of the product (test/start/database-killed.test.ts under `npm start`,
 * test/production/database-killed.test.ts under the roles): the postmaster SIGKILLed as an out-of-memory kill would,
 * the wait for its server processes to end their sessions, attestations asked for in a loop meanwhile, what is
 * accepted as their answers, and the check that every attestation made has its workflow.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { removeWithThisProcess } from '../../harness/reaper';
import { attestationWorkflowId } from '../../temporal/workflow-ids';
import { eventually } from './eventually';

/**
 * A data directory of the test's own, searchable by all so that PostgreSQL (run as the `postgres` user under root)
 * keeps its cluster inside it; removed with the test process should it end first.
 */
export function ownDataDir(prefix: string): { path: string; remove(): void } {
  const directory = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(directory, 0o755);
  const forget = removeWithThisProcess(directory);
  return {
    path: directory,
    remove() {
      rmSync(directory, { recursive: true, force: true });
      forget();
    },
  };
}

/** Whether process `pid` runs (a zombie does not). */
export function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return state.slice(state.lastIndexOf(')') + 2, state.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The members of process group `pgid` still running, from /proc. */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid && alive(Number(name))) members.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

/**
 * SIGKILLs the postmaster `pid` (the embedded server runs in a process group of its own, which it leads), then waits
 * until its server processes have noticed and ended their sessions ("terminating connection due to unexpected
 * postmaster exit"), so that a server can start again on its data.
 */
export async function killPostmaster(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await eventually(async () => expect(groupMembers(pid)).toEqual([]), 60_000);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of many routes, read field by field
export type Answer = { status: number; retryAfter: string | null; body: any };

/** GET `url` (or POST `body` to it) with the API key `key`. */
export async function call(url: string, key: string, body?: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method: body ? 'POST' : 'GET',
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: text ? JSON.parse(text) : undefined };
}

const SESSIONS = ['premarket', 'regular', 'postmarket', 'overnight', 'offhours'] as const;

/** Room for every attestation of SPYon a test asks for, whatever the session. */
export async function openLimits(api: string, adminKey: string): Promise<void> {
  for (const session of SESSIONS) {
    const limit = await fetch(`${api}/limits/session/SPYon/${session}`, {
      method: 'PUT',
      headers: { 'x-api-key': adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ tradable: true, maxAttestationCount: '100000', maxActiveNotionalValue: '1000000000' }),
    });
    expect([session, limit.status]).toEqual([session, 200]);
  }
}

/** What an attestation asked for while the database goes and comes back may be answered. */
const DOCUMENTED_OUTCOMES = [
  '200',
  // The database gone.
  '503 SERVICE_UNAVAILABLE',
  // Just after it is back: the latest price older than quotes accept until the feed has stored a tick.
  '503 PRICE_UNAVAILABLE',
];

export interface AttestationLoad {
  answers: { status: number; retryAfter: string | null; code?: string }[];
  /** Ids of the attestations made. */
  made: string[];
  count(status: number): number;
  /** The answers that are neither an attestation nor a documented 503 (a 500, a dropped connection: status 0). */
  undocumented(): string[];
  stop(): Promise<void>;
}

/**
 * Buy attestations of SPYon on `chainId` asked for of `api` (ending in /v1) by `lanes` callers at once, each pausing
 * briefly between calls so that they do not take the machine's cores, until stopped.
 */
export function attestationLoad(api: string, writeKey: string, options: { lanes: number; chainId: string }): AttestationLoad {
  const answers: AttestationLoad['answers'] = [];
  const made: string[] = [];
  let stopped = false;
  const lane = async () => {
    while (!stopped) {
      const answer = await call(`${api}/attestations`, writeKey, { symbol: 'SPYon', side: 'buy', tokenAmount: '0.01', duration: 'short', chainId: options.chainId }).catch(
        (error: unknown): Answer => ({ status: 0, retryAfter: null, body: { code: String((error as { cause?: { code?: unknown } }).cause?.code ?? error) } }),
      );
      answers.push({ status: answer.status, retryAfter: answer.retryAfter, code: answer.body?.code });
      if (answer.status === 200) made.push(answer.body.attestationId);
      await new Promise((resolve) => setTimeout(resolve, answer.status === 200 ? 20 : 100));
    }
  };
  const running = Promise.all(Array.from({ length: options.lanes }, lane));
  return {
    answers,
    made,
    count: (status) => answers.filter((answer) => answer.status === status).length,
    undocumented: () => [
      ...new Set(
        answers
          .map((answer) => ({ outcome: `${answer.status} ${answer.code ?? ''}`.trim(), answer }))
          .filter(({ outcome, answer }) => !DOCUMENTED_OUTCOMES.includes(outcome) || (answer.code === 'SERVICE_UNAVAILABLE' && answer.retryAfter !== '5'))
          .map(({ outcome, answer }) => `${outcome} (Retry-After ${answer.retryAfter})`),
      ),
    ],
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** Waits until every attestation of `ids` has its workflow on the Temporal service at `address`. */
export async function expectWorkflowsOf(ids: string[], temporal: { address: string; namespace?: string }): Promise<void> {
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const client = new Client({ connection, namespace: temporal.namespace });
    await eventually(async () => {
      const missing: string[] = [];
      for (const id of ids) {
        await client.workflow
          .getHandle(attestationWorkflowId(id))
          .describe()
          .catch(() => missing.push(id));
      }
      expect(missing).toEqual([]);
    }, 120_000);
  } finally {
    await connection.close();
  }
}
