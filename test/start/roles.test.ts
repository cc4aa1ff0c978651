/**
 * What a role refuses, and the development-keys rule: a role without DATABASE_URL or TEMPORAL_ADDRESS (it starts no
 * embedded server) or an API without signer keys (a role makes none) stops with the variable named; `npm start` told
 * DEVELOPMENT_KEYS=true on a database holding real keys refuses; development keys are marked as such.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { countActiveNonDevelopmentKeys, createApiKey } from '../../db/queries/api-keys';
import { freePort } from '../../config/free-port';
import { ensureDevKeys, refuseDevKeysBesideRealOnes, wantsDevelopmentKeys } from '../../start/dev-keys';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { startProcess, type TestProcess } from '../../harness/processes';

let database: TestDb;
const started: TestProcess[] = [];

beforeAll(async () => {
  database = await cloneTemplateDatabase();
});
afterAll(async () => {
  await Promise.all(started.map((child) => child.stop()));
  await database?.drop();
});

async function env(overrides: Record<string, string>): Promise<NodeJS.ProcessEnv> {
  const base = { ...process.env };
  for (const name of Object.keys(base)) if (/^(DATABASE_URL|TEMPORAL_|RPC_URL_|BROKER_|NODE_OPTIONS|ATTESTATION_|DEVELOPMENT_KEYS)/.test(name)) delete base[name];
  return { ...base, LOG_FORMAT: 'json', METRICS_PORT: String(await freePort()), PORT: '0', GRPC_PORT: '0', ...overrides };
}

async function run(entry: string, overrides: Record<string, string>): Promise<{ code: number | NodeJS.Signals; output: string }> {
  const child = startProcess(path.basename(entry), entry, [], await env(overrides));
  started.push(child);
  const code = await child.exited;
  return { code, output: child.output() };
}

test.each([
  ['start/api-main.ts', {}, 'DATABASE_URL: required by npm run api'],
  ['start/worker-main.ts', { TEMPORAL_ADDRESS: '127.0.0.1:1' }, 'DATABASE_URL: required by npm run worker'],
  ['start/feed-main.ts', { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, 'TEMPORAL_ADDRESS: required by npm run feed'],
])('%s refuses to start without what it must be given', async (entry, overrides, message) => {
  const { code, output } = await run(entry, overrides);
  expect(code).toBe(1);
  expect(output).toContain(`invalid configuration: ${message}`);
});

test('the API role makes no signer keys: without them it stops naming the variable', async () => {
  const { code, output } = await run('start/api-main.ts', { DATABASE_URL: database.url, TEMPORAL_ADDRESS: '127.0.0.1:1' });
  expect(code).toBe(1);
  expect(output).toContain('ATTESTATION_EVM_PRIVATE_KEY: required by npm run api (only npm start makes development signer keys)');
});

test('npm start refuses DEVELOPMENT_KEYS=true on a database holding keys that are not development keys', async () => {
  await createApiKey(database.db, { name: 'a real admin', scope: 'admin' });
  const { code, output } = await run('start/main.ts', { DATABASE_URL: database.url, DEVELOPMENT_KEYS: 'true', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'issuer-roles-')) });
  expect(code).toBe(1);
  expect(output).toMatch(/DEVELOPMENT_KEYS=true refused: the database at DATABASE_URL holds active API keys that are not development keys \(\d+\)/);
  expect(output).not.toMatch(/isk_(read|write|admin)_/);
});

test('development keys are marked; beside only them, more may be made; embedded or asked-for only', async () => {
  const scratch = await cloneTemplateDatabase();
  try {
    const keys = await ensureDevKeys(scratch.db, undefined, async () => false);
    expect(Object.keys(keys).sort()).toEqual(['admin', 'read', 'write']);
    expect(await countActiveNonDevelopmentKeys(scratch.db)).toBe(0);
    await expect(refuseDevKeysBesideRealOnes(scratch.db)).resolves.toBeUndefined();
    await createApiKey(scratch.db, { name: 'cli key', scope: 'read' });
    await expect(refuseDevKeysBesideRealOnes(scratch.db)).rejects.toThrow('holds active API keys that are not development keys (1)');
  } finally {
    await scratch.drop();
  }
  expect(wantsDevelopmentKeys({ DATABASE_URL: undefined, DEVELOPMENT_KEYS: false })).toBe(true);
  expect(wantsDevelopmentKeys({ DATABASE_URL: 'postgres://x', DEVELOPMENT_KEYS: false })).toBe(false);
  expect(wantsDevelopmentKeys({ DATABASE_URL: 'postgres://x', DEVELOPMENT_KEYS: true })).toBe(true);
});
