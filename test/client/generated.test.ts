/**
 * The client package's generated files (client/openapi.json, client/src/generated/*) are what the product makes of
 * itself now: its OpenAPI document, the types openapi-typescript reads from it, the operations table with each
 * operation's retry class, the contract fragments and chain ids. A route, schema, error code or contract changed
 * without `npm run client:generate` fails here. The generator runs as the script does (tsx, in a child process), into
 * a temporary directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OPERATIONS } from 'tokenized-stock-issuer-client';

const ROOT = path.join(__dirname, '..', '..');
const CLIENT_DIR = path.join(ROOT, 'client');
const GENERATED = ['openapi.json', 'src/generated/api.ts', 'src/generated/contracts.ts', 'src/generated/operations.ts'];
const fresh = mkdtempSync(path.join(tmpdir(), 'client-generate-'));

beforeAll(() => {
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/client.ts', fresh], { cwd: ROOT, stdio: 'pipe', timeout: 120_000 });
}, 150_000);

afterAll(() => rmSync(fresh, { recursive: true, force: true }));

test.each(GENERATED)('client/%s is current (else: run npm run client:generate)', (file) => {
  const checkedIn = readFileSync(path.join(CLIENT_DIR, file), 'utf8');
  if (checkedIn !== readFileSync(path.join(fresh, file), 'utf8')) throw new Error(`client/${file} is stale: run npm run client:generate`);
});

test('every operation of the document is in the table, with its retry class', () => {
  const document = JSON.parse(readFileSync(path.join(fresh, 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId: string }>> };
  const declared = Object.entries(document.paths).flatMap(([route, methods]) => Object.entries(methods).map(([method, o]) => [o.operationId, method, route].join(' ')));
  expect(Object.entries(OPERATIONS).map(([id, o]) => [id, o.method, o.path].join(' ')).sort()).toEqual(declared.sort());
  expect(OPERATIONS.createAttestation.retry).toBe('idempotency-key');
  expect(OPERATIONS.getAttestation.retry).toBe('always');
  expect(OPERATIONS.createSoftQuote.retry).toBe('never');
});
