/**
 * The campaign's workload against the real product (startProduct in this process: embedded PostgreSQL, both anvil
 * chains, the Solana ledger, Temporal, the API, the worker, the brokerage sandbox, on free ports and a data directory
 * of the test's own) for about 40 s, without faults: the journal holds an answer of every kind of operation the users,
 * the partner and the operator make, each actor's operations are the ones its stream draws for the seed (the same
 * seed, the same sequence), and invariants 5 and 8 hold at 0 violations. Then the same journal broken on purpose —
 * a 2xx attestation the database lacks, a 500, a 503 without Retry-After, a 503 with no fault — has each named.
 * The product is stopped whatever happens, and killed past its stop's deadline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkAnswers, type AnswerInvariantsParameters } from '../../campaign/answer-invariants';
import { formatViolation } from '../../campaign/invariants';
import { createJournal, readJournal, type Journal } from '../../campaign/journal';
import type { JournalEntry, ScheduledStep } from '../../campaign/model';
import { seededRandom } from '../../campaign/random';
import { drawOperations } from '../../campaign/operations';
import { runWorkload, type WorkloadResult } from '../../campaign/workload';
import { configSchema, loadConfig, type ConfigVariable } from '../../config';
import { freePorts } from '../../config/free-port';
import { createLogger } from '../../config/logger';
import { createPool, type Database } from '../../db/pool';
import { startProduct, type RunningProduct } from '../../start/start-product';

jest.setTimeout(900_000);

const SEED = 36;
const RUN_MS = 40_000;
const OPERATIONS_PER_SECOND = 3;

const dataDir = mkdtempSync(path.join(tmpdir(), 'issuer-workload-'));
let product: RunningProduct | undefined;
let db: Database | undefined;
let journal: Journal;
let apiUrl: string;
const steps: ScheduledStep[] = [];
let result: WorkloadResult;

beforeAll(async () => {
  const names = ['PORT', 'GRPC_PORT', 'EMBEDDED_POSTGRES_PORT', 'ANVIL_PORT_ETHEREUM', 'ANVIL_PORT_BSC', 'SOLANA_RPC_PORT', 'BROKER_SANDBOX_PORT', 'METRICS_PORT', 'TEMPORAL_PORT'];
  const ports = await freePorts(names.length);
  const env = { ...Object.fromEntries(names.map((name, index) => [name, String(ports[index])])), DATA_DIR: dataDir, LOG_LEVEL: 'error', LOG_FORMAT: 'json' };
  const config = loadConfig(Object.keys(configSchema.shape) as ConfigVariable[], env);
  const stopping = setTimeout(() => product?.kill(), 800_000);
  try {
    product = await startProduct(config, { logger: createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT }) });
  } finally {
    clearTimeout(stopping);
  }
  db = createPool(product.stack.database, 2);
  apiUrl = product.stack.api.replace(/\/v1$/, '');

  journal = createJournal({ file: path.join(dataDir, 'campaign', 'journal.jsonl'), startedAt: Date.now(), activeFaults: () => [] });
  const aborted = new AbortController();
  const timer = setTimeout(() => aborted.abort(), RUN_MS);
  result = await runWorkload({
    target: { stack: product.stack, apiUrls: [apiUrl] },
    random: seededRandom(SEED, 'workload'),
    journal,
    signal: aborted.signal,
    record: (step) => steps.push(step),
    operationsPerSecond: OPERATIONS_PER_SECOND,
  });
  clearTimeout(timer);
}, 900_000);

afterAll(async () => {
  await db?.end();
  if (product) {
    const deadline = setTimeout(() => product?.kill(), 90_000);
    await product.stop();
    clearTimeout(deadline);
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const check = (entries: readonly JournalEntry[], overrides: Partial<AnswerInvariantsParameters> = {}) =>
  checkAnswers(db!, { journal: entries, productApis: [apiUrl], schedule: [], ...overrides });

test('the journal holds answers to operations of every kind, each actor doing what its stream draws for the seed', () => {
  const entries = readJournal(journal.file);
  expect(entries).toEqual(journal.entries());
  const kinds = new Set(steps.map((step) => step.name));
  expect({ kinds: [...kinds].sort(), result }).toMatchObject({
    kinds: expect.arrayContaining(['attest', 'partner-mint', 'pause-asset', 'pause-chain', 'review']),
  });
  // Every chain attested on, both sides, answered 200 at least once on each chain; and chain sends made.
  const attested = entries.filter((entry) => entry.path === '/v1/attestations' && entry.method === 'POST' && entry.status === 200);
  expect(new Set(attested.map((entry) => (entry.requestBody as { chainId: string }).chainId))).toEqual(new Set(['ethereum-1', 'bsc-56', 'solana-900']));
  expect(new Set(attested.map((entry) => (entry.requestBody as { side: string }).side))).toEqual(new Set(['buy', 'sell']));
  expect(Object.keys(result.chainOutcomes).some((outcome) => / (success|sent)$/.test(outcome))).toBe(true);
  expect(entries.some((entry) => entry.api !== apiUrl && entry.path.endsWith('/tokenization/mint') && entry.status === 201)).toBe(true);
  expect(entries.some((entry) => /^\/v1\/status\/(market|assets\/[^/]+|chains\/[^/]+)\/resume$/.test(entry.path) && entry.status === 200)).toBe(true);

  // The same seed draws the same operations: what each actor did is the start of what its stream draws.
  const actors = ['user-0', 'user-1', 'user-2', 'user-3', 'user-4', 'partner', 'operator'];
  expect(new Set(steps.map((step) => step.detail.actor))).toEqual(new Set(actors));
  for (const actor of actors) {
    const role = actor.startsWith('user') ? 'user' : (actor as 'partner' | 'operator');
    const done = steps.filter((step) => step.detail.actor === actor).map((step) => step.name);
    const drawn = drawOperations(seededRandom(SEED, 'workload').fork(actor), role, done.length, (actors.length * 1_000) / OPERATIONS_PER_SECOND).map((draw) => draw.operation.kind);
    expect([actor, done]).toEqual([actor, drawn]);
  }
});

test('users attest under several write keys: the development account and accounts of their own', async () => {
  const ids = journal.entries().filter((entry) => entry.path === '/v1/attestations' && entry.status === 200).map((entry) => (entry.body as { attestationId: string }).attestationId);
  const { rows } = await db!.query<{ accounts: number }>('SELECT count(DISTINCT account_id)::int AS accounts FROM attestations WHERE attestation_id = ANY($1::numeric[])', [ids]);
  expect(rows[0]!.accounts).toBeGreaterThanOrEqual(2);
});

test('invariants 5 and 8 hold on the run: every 2xx is stored as answered, no answer outside the contract', async () => {
  const violations = await check(journal.entries());
  expect(violations.map(formatViolation)).toEqual([]);
});

test('a journal broken on purpose has each break named', async () => {
  const entries = journal.entries();
  const attestation = entries.find((entry) => entry.path === '/v1/attestations' && entry.status === 200)!;
  const lost = { ...attestation, body: { ...(attestation.body as object), attestationId: '12345678901234567890' } };
  const answer = (status: number, retryAfter: string | undefined, faults: string[], code = 'SERVICE_UNAVAILABLE'): JournalEntry => ({
    sentMs: 1_000,
    answeredMs: 1_100,
    actor: 'user-0',
    api: apiUrl,
    method: 'GET',
    path: '/v1/attestations?limit=20',
    status,
    ...(retryAfter ? { retryAfter } : {}),
    body: { code },
    faults,
  });
  const broken = [...entries, lost, answer(500, undefined, ['kill api-1']), answer(503, undefined, ['postgres restart']), answer(503, '5', [])];
  const violations = await check(broken);
  expect(violations.map(({ invariant, rule, records }) => ({ invariant, rule, id: records.attestationId ?? records.status, faults: records.faults }))).toEqual([
    { invariant: '5 answers kept', rule: 'an attestation answered 2xx is not in the database', id: '12345678901234567890', faults: undefined },
    { invariant: '8 answers in contract', rule: 'a 5xx other than 503', id: '500', faults: 'kill api-1' },
    { invariant: '8 answers in contract', rule: 'a 503 without Retry-After', id: '503', faults: 'postgres restart' },
    { invariant: '8 answers in contract', rule: 'a 503 with no fault in force nor within 30000 ms before', id: '503', faults: 'none' },
  ]);
  // A fault step (or its heal) shortly before the 503 allows it; an answer stored other than answered is named too.
  expect(answerWithin(await check([answer(503, '5', [])], { schedule: [{ atMs: 500, kind: 'heal', name: 'postgres', detail: {} }] }))).toEqual([]);
  // The Solana nonce pool exhausted is the workload's doing: no fault needed, Retry-After still.
  expect(answerWithin(await check([answer(503, '5', [], 'NONCE_POOL_EXHAUSTED'), answer(503, undefined, [], 'NONCE_POOL_EXHAUSTED')]))).toEqual(['a 503 without Retry-After']);
  const altered = { ...attestation, body: { ...(attestation.body as object), price: '1' } };
  expect(answerWithin(await check([altered]))).toEqual(['an attestation answered 2xx is stored other than answered']);
  // The other answers kept: the market paused last (it runs), a corporate action and a partner mint the database lacks.
  const lastMs = Math.max(...entries.map((entry) => entry.answeredMs)) + 1_000;
  const admin = (method: string, path: string, status: number, body: unknown, requestBody?: unknown): JournalEntry => ({
    sentMs: lastMs,
    answeredMs: lastMs + 10,
    actor: 'operator',
    api: apiUrl,
    method,
    path,
    status,
    body,
    ...(requestBody ? { requestBody } : {}),
    faults: [],
  });
  const unknownEvent = admin('POST', '/v1/status/assets/events', 201, { eventId: 'evt_lost' }, { symbol: 'SPYon', code: 'ASSET_PAUSED', reason: 'stock_split', start: 1, end: 2 });
  const brokerRecord = { ...admin('GET', '/v1/accounts/a/tokenization/requests/b', 200, { tokenization_request_id: 'b', issuer_request_id: 'mint-lost' }), api: 'http://broker' };
  expect(answerWithin(await check([...entries, admin('POST', '/v1/status/market/pause', 200, {}, { reason: 'x' }), unknownEvent, brokerRecord]))).toEqual([
    'the last pause answered 2xx is not the state stored',
    'a scheduled event answered 2xx is not in the database',
    'a partner mint the broker was answered for is not the issuer request stored',
  ]);
  // A resume that got no answer after it may have taken effect: the market is then not judged.
  const unanswered = { ...admin('POST', '/v1/status/market/resume', 0, undefined), sentMs: lastMs + 20, answeredMs: lastMs + 30 };
  expect(answerWithin(await check([...entries, admin('POST', '/v1/status/market/pause', 200, {}, { reason: 'x' }), unanswered]))).toEqual([]);
});

const answerWithin = (violations: { rule: string }[]) => violations.map((violation) => violation.rule);
