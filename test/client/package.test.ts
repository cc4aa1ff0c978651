/**
 * The client package stands alone, as it is published: copied out of the repository with nothing but its own
 * dependencies and peers beside it, it builds (tsc -p tsconfig.build.json); its sources import only each other and
 * what its package.json declares, never the product; `npm pack` would publish only dist/, README.md, openapi.json and
 * package.json; and the built dist/index.js runs in a child node — with the optional peers (viem, @solana/kit)
 * absent too, for an integrator who only calls the API and verifies webhooks.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const CLIENT = path.join(ROOT, 'client');
const manifest = JSON.parse(readFileSync(path.join(CLIENT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
const work = mkdtempSync(path.join(tmpdir(), 'client-package-'));
const packageDir = path.join(work, 'tokenized-stock-issuer-client');

/** A node_modules in `dir` holding only `names` (links to the repository's installed copies). */
function modulesWith(dir: string, names: readonly string[]): void {
  for (const name of names) {
    mkdirSync(path.dirname(path.join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', name), path.join(dir, 'node_modules', name), 'dir');
  }
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sourceFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
}

const node = (cwd: string, script: string) => execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd, encoding: 'utf8', timeout: 60_000 });

beforeAll(() => {
  for (const entry of ['package.json', 'README.md', 'openapi.json', 'tsconfig.json', 'tsconfig.build.json', 'src']) cpSync(path.join(CLIENT, entry), path.join(packageDir, entry), { recursive: true });
  modulesWith(packageDir, [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: packageDir, stdio: 'pipe', timeout: 120_000 });
}, 150_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

test('its sources import only each other and the dependencies and peers it declares', () => {
  const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
  const foreign: string[] = [];
  for (const file of sourceFiles(path.join(CLIENT, 'src'))) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      if (specifier!.startsWith('.')) {
        if (!path.resolve(path.dirname(file), specifier!).startsWith(path.join(CLIENT, 'src'))) foreign.push(`${file}: ${specifier}`);
      } else if (!declared.has(specifier!.split('/').slice(0, specifier!.startsWith('@') ? 2 : 1).join('/'))) {
        foreign.push(`${file}: ${specifier}`);
      }
    }
  }
  expect(foreign).toEqual([]);
});

test('npm pack would publish dist/, README.md, openapi.json and package.json only', () => {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: packageDir, encoding: 'utf8', timeout: 60_000 })) as { name: string; files: { path: string }[] }[];
  expect(pack!.name).toBe('tokenized-stock-issuer-client');
  const files = pack!.files.map((file) => file.path);
  expect(files.filter((file) => !file.startsWith('dist/')).sort()).toEqual(['README.md', 'openapi.json', 'package.json']);
  expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/generated/api.d.ts', 'dist/generated/operations.js']));
});

test('the built package runs in a child node: the client, a webhook verified, an EVM attestation checked', () => {
  const output = node(
    packageDir,
    `
    import { Webhook } from 'standardwebhooks';
    import { createIssuerClient, verifyWebhook, verifyAttestation, IssuerNetworkError, OPERATIONS } from './dist/index.js';
    const secret = 'whsec_' + Buffer.from('k'.repeat(32)).toString('base64');
    const body = JSON.stringify({ id: 'evt_1', type: 'attestation.executed', timestamp: 1, resource: { kind: 'attestation', id: '1' }, sequence: '1', data: {} });
    const at = new Date();
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(at / 1000)), 'webhook-signature': new Webhook(secret).sign('evt_1', at, body) };
    const event = verifyWebhook(body, headers, ['whsec_' + Buffer.from('o'.repeat(32)).toString('base64'), secret]);
    const refused = await createIssuerClient({ baseUrl: 'http://127.0.0.1:9', retry: { maxAttempts: 1 } }).call('getHealth').catch((error) => error);
    const verdict = await verifyAttestation({ attestationId: '1', userId: '0x' + '00'.repeat(32), chainId: '1', assetAddress: '0x' + '11'.repeat(20), side: '0', tokenAmount: '1', price: '1', expiration: 1, signature: Buffer.alloc(65, 1).toString('base64'), additionalData: Buffer.alloc(32).toString('base64') },
      { evm: { address: '0x' + '22'.repeat(20), domains: { 'ethereum-1': { name: 'n', version: '1', chainId: 1, verifyingContract: '0x' + '33'.repeat(20) } } }, solana: { publicKey: '', message: '' } });
    console.log(JSON.stringify({ type: event.type, network: refused instanceof IssuerNetworkError, valid: verdict.valid, scheme: verdict.scheme, create: OPERATIONS.createAttestation.retry }));
    `,
  );
  expect(JSON.parse(output)).toEqual({ type: 'attestation.executed', network: true, valid: false, scheme: 'eip712', create: 'idempotency-key' });
});

test('without the optional peers (viem, @solana/kit) the client and verifyWebhook still load and run', () => {
  const bare = path.join(work, 'bare');
  cpSync(path.join(packageDir, 'dist'), path.join(bare, 'dist'), { recursive: true });
  cpSync(path.join(packageDir, 'package.json'), path.join(bare, 'package.json'));
  modulesWith(bare, Object.keys(manifest.dependencies));
  const output = node(bare, `
    const kit = await import('./dist/index.js');
    const client = kit.createIssuerClient({ baseUrl: 'http://127.0.0.1:9', retry: { maxAttempts: 1 } });
    const error = await client.attestations.get('1').catch((caught) => caught);
    const chain = await kit.verifyAttestation({ chainId: '1' }, { evm: { address: '', domains: {} }, solana: { publicKey: '', message: '' } }).catch((caught) => caught.code);
    let forged;
    try { kit.verifyWebhook('{}', { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' }, 'whsec_' + btoa('k'.repeat(32))); } catch (caught) { forged = caught instanceof kit.WebhookVerificationError; }
    console.log(JSON.stringify({ network: error instanceof kit.IssuerNetworkError, chain, forged }));
  `);
  expect(JSON.parse(output)).toEqual({ network: true, chain: 'ERR_MODULE_NOT_FOUND', forged: true });
});
