/**
 * The client kit used as an integrator uses it, against a running product (startProduct in this process: embedded
 * PostgreSQL, both anvil chains, the Solana ledger, Temporal, the API, the worker, on free ports and a data directory
 * of the test's own), with the development write key and wallets stack.json lists, on SPYon (it trades in every
 * session, so this passes at any hour):
 * - on ethereum-1, bsc-56 and solana-900 a buy then a sell of what it bought: created with the client, verified
 *   offline, submitted with submitEvmAttestation (the approvals it needs made by it) or sendSolanaAttestation, each
 *   reaching `executed`, learned through a webhook endpoint registered with the kit (a receiver on 127.0.0.1 that
 *   verifies each request with verifyWebhook and deduplicates on its id), and seen so by `attestations.get`;
 * - a create repeated with its Idempotency-Key answers the same attestation;
 * - an attestation refused for a limit is an IssuerApiError the caller narrows with isIssuerError(e, 'MAX_ATTESTATIONS');
 * - a price stream through a TCP proxy that cuts it resumes with Last-Event-ID: no event twice, no reset.
 * The product is stopped whatever happens, and killed past its stop's deadline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKeyPairSignerFromBytes, createSolanaRpc, getBase58Encoder } from '@solana/kit';
import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  createIssuerClient,
  isIssuerError,
  sendSolanaAttestation,
  submitEvmAttestation,
  verifyAttestation,
  verifyWebhook,
  type IssuerClient,
  type Signers,
  type WebhookEvent,
} from 'tokenized-stock-issuer-client';
import { startLinkProxy, type LinkProxy } from '../../campaign/fault-proxy';
import { seededRandom } from '../../campaign/random';
import { configSchema, loadConfig, type ConfigVariable } from '../../config';
import { freePorts } from '../../config/free-port';
import { createLogger } from '../../config/logger';
import { LIMIT_SESSIONS } from '../../api/v1/limits/schemas';
import { startProduct, type RunningProduct } from '../../start/start-product';
import type { StackChain } from '../../start/stack-file';

jest.setTimeout(600_000);

const SYMBOL = 'SPYon';
const dataDir = mkdtempSync(path.join(tmpdir(), 'issuer-client-'));
let product: RunningProduct | undefined;
let proxy: LinkProxy | undefined;
let origin: string;
let client: IssuerClient;
let admin: IssuerClient;
let signers: Signers;
let receiver: Server;
/** The webhook events the receiver verified, each once (by `webhook-id`), and the requests it got in all. */
const events = new Map<string, WebhookEvent>();
let requests = 0;
let webhookSecret: string;
let stack: RunningProduct['stack'] & { chains: Record<string, StackChain & { rpcUrl: string }>; wallets: { address: Hex; privateKey: Hex }[]; solanaWallets: { address: string; secretKey: string }[] };

beforeAll(async () => {
  const names = ['PORT', 'GRPC_PORT', 'EMBEDDED_POSTGRES_PORT', 'ANVIL_PORT_ETHEREUM', 'ANVIL_PORT_BSC', 'SOLANA_RPC_PORT', 'BROKER_SANDBOX_PORT', 'METRICS_PORT', 'TEMPORAL_PORT'];
  const ports = await freePorts(names.length);
  const env = { ...Object.fromEntries(names.map((name, index) => [name, String(ports[index])])), DATA_DIR: dataDir, LOG_LEVEL: 'error', LOG_FORMAT: 'json' };
  const config = loadConfig(Object.keys(configSchema.shape) as ConfigVariable[], env);
  const stopping = setTimeout(() => product?.kill(), 500_000);
  try {
    product = await startProduct(config, { logger: createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT }) });
  } finally {
    clearTimeout(stopping);
  }
  stack = product.stack as typeof stack;
  origin = stack.api.replace(/\/v1$/, '');
  client = createIssuerClient({ baseUrl: origin, apiKey: stack.keys!.write });
  admin = createIssuerClient({ baseUrl: origin, apiKey: stack.keys!.admin });
  signers = await client.attestations.signers();

  // The integrator's receiver: it verifies the signature over the raw body, then keeps each event once.
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests += 1;
      try {
        const event = verifyWebhook(Buffer.concat(chunks), request.headers as Record<string, string>, webhookSecret);
        events.set(event.id, event);
        response.writeHead(204).end();
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = await client.webhooks.create({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/issuer`, events: ['attestation.executing', 'attestation.executed'] });
  webhookSecret = endpoint.secret;
}, 600_000);

afterAll(async () => {
  await proxy?.stop();
  receiver?.closeAllConnections();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  if (product) {
    const deadline = setTimeout(() => product?.kill(), 90_000);
    await product.stop();
    clearTimeout(deadline);
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the webhook saying the attestation is `executed` (the product saw its execution final); the API says so too. */
async function executed(attestationId: string): Promise<void> {
  const said = (): string[] => [...events.values()].filter((event) => event.resource.id === attestationId).map((event) => event.type);
  while (!said().includes('attestation.executed')) await pause(200);
  expect(said()).toEqual(['attestation.executing', 'attestation.executed'].filter((type) => said().includes(type)));
  expect((await client.attestations.get(attestationId)).state).toBe('executed');
}

describe.each(['ethereum-1', 'bsc-56'] as const)('on %s', (chain) => {
  test('a buy then a sell of what it bought go through the kit to executed, the approvals made when short', async () => {
    const wallet = stack.wallets[0]!;
    const transport = http(stack.chains[chain]!.rpcUrl);
    const publicClient = createPublicClient({ transport });
    const walletClient = createWalletClient({ account: privateKeyToAccount(wallet.privateKey), transport });

    const buy = await client.attestations.create({ symbol: SYMBOL, side: 'buy', tokenAmount: '0.25', chainId: chain });
    expect(await verifyAttestation(buy, signers)).toMatchObject({ valid: true, scheme: 'eip712' });
    const bought = await submitEvmAttestation({ attestation: buy, walletClient, publicClient, signers });
    expect(bought.receipt.status).toBe('success');
    await executed(buy.attestationId);

    const sell = await client.attestations.create({ symbol: SYMBOL, side: 'sell', tokenAmount: '0.25', chainId: chain });
    expect(await verifyAttestation(sell, signers)).toMatchObject({ valid: true });
    const sold = await submitEvmAttestation({ attestation: sell, walletClient, publicClient, signers });
    expect(sold.approvalHash).toBeDefined(); // the stock token, never approved before
    expect(sold.executionId).toBeGreaterThan(bought.executionId);
    await executed(sell.attestationId);

    // The same attestation twice: the contract's refusal, by name, before anything is spent.
    await expect(submitEvmAttestation({ attestation: sell, walletClient, publicClient, signers })).rejects.toMatchObject({ name: 'IssuerChainError', reason: 'AttestationAlreadyUsed' });
  });
});

test('on solana-900 a buy then a sell go through the kit to executed; a transaction built for another wallet is not signed', async () => {
  const wallet = stack.solanaWallets[0]!;
  const signer = await createKeyPairSignerFromBytes(Uint8Array.from(getBase58Encoder().encode(wallet.secretKey)));
  const rpc = createSolanaRpc(stack.chains['solana-900']!.rpcUrl);
  for (const side of ['buy', 'sell'] as const) {
    const attestation = await client.attestations.create({ symbol: SYMBOL, side, tokenAmount: '0.25', chainId: 'solana-900', userAddress: wallet.address });
    expect(await verifyAttestation(attestation, signers, { userAddress: wallet.address })).toMatchObject({ valid: true, scheme: 'ed25519', user: wallet.address });
    if (side === 'buy') {
      const other = await createKeyPairSignerFromBytes(Uint8Array.from(getBase58Encoder().encode(stack.solanaWallets[1]!.secretKey)));
      await expect(sendSolanaAttestation({ attestation, signer: other, rpc })).rejects.toThrow(/built for/);
    }
    await sendSolanaAttestation({ attestation, signer, rpc });
    await executed(attestation.attestationId);
  }
});

test('a price stream cut mid-way resumes with Last-Event-ID: no event twice, none lost to a reset', async () => {
  const port = Number(new URL(origin).port);
  proxy = await startLinkProxy({ name: 'api', target: { host: '127.0.0.1', port }, random: seededRandom(1, 'client-stream') });
  const sent: (string | null)[] = [];
  const streaming = createIssuerClient({
    baseUrl: `http://127.0.0.1:${proxy.port}`,
    apiKey: stack.keys!.read,
    fetch: (request) => {
      sent.push(request.headers.get('last-event-id'));
      return fetch(request);
    },
  });
  const ids: string[] = [];
  let resets = 0;
  let cutAfter: number | undefined;
  const stop = new AbortController();
  for await (const item of streaming.streams.prices({ symbols: [SYMBOL], signal: stop.signal })) {
    if (item.kind === 'reset') resets += 1;
    else ids.push(item.id);
    if (ids.length === 3 && cutAfter === undefined) {
      cutAfter = ids.length;
      const link = proxy;
      void (async () => {
        link.set({ dropRate: 1 });
        while (link.open() > 0) await pause(50);
        link.set(undefined);
      })();
    }
    if (sent.length >= 2 && ids.length >= cutAfter! + 3) stop.abort();
  }
  expect(sent[0]).toBeNull();
  expect(sent.length).toBeGreaterThanOrEqual(2);
  // Each reconnection resumes after the last event the iterator had given.
  for (const resumedFrom of sent.slice(1)) expect(ids).toContain(resumedFrom);
  expect(new Set(ids).size).toBe(ids.length);
  const seqs = ids.map((id) => Number(id.split('-')[1]));
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(new Set(ids.map((id) => id.split('-')[0])).size).toBe(1);
  expect(resets).toBe(0);
});

test('a create repeated with its Idempotency-Key answers the same attestation', async () => {
  const request = { symbol: SYMBOL, side: 'buy', tokenAmount: '0.25', chainId: 'bsc-56' } as const;
  const first = await client.attestations.create(request, { idempotencyKey: 'client-e2e-1' });
  const again = await client.attestations.create(request, { idempotencyKey: 'client-e2e-1' });
  expect(again.attestationId).toBe(first.attestationId);
  expect((await client.attestations.create(request)).attestationId).not.toBe(first.attestationId);
});

test("an attestation refused for a limit is the operation's typed error", async () => {
  for (const session of LIMIT_SESSIONS) {
    await admin.call('updateSessionLimit', { path: { symbol: SYMBOL, session }, body: { tradable: true, maxAttestationCount: '0', maxActiveNotionalValue: '1000000' } });
  }
  const refused: unknown = await client.attestations.create({ symbol: SYMBOL, side: 'buy', tokenAmount: '0.25', chainId: 'ethereum-1' }).catch((error: unknown) => error);
  expect(isIssuerError(refused, 'MAX_ATTESTATIONS')).toBe(true);
  if (!isIssuerError(refused, 'MAX_ATTESTATIONS')) throw refused;
  expect(refused.status).toBe(400);
  expect(refused.documentation).toMatch(/#max_attestations$/);
});

test('the webhook events were each signed with the secret the kit was answered, and are typed by the catalogue', async () => {
  const attestationEvents = [...events.values()];
  expect(attestationEvents.filter((event) => event.type === 'attestation.executed')).toHaveLength(6);
  expect(requests).toBeGreaterThanOrEqual(events.size);
  for (const event of attestationEvents) {
    if (event.type !== 'attestation.executed' && event.type !== 'attestation.executing') throw new Error(`unexpected ${event.type}`);
    expect(event).toMatchObject({ id: `evt_${event.sequence}`, resource: { kind: 'attestation', id: event.data.attestationId } });
  }
  expect(webhookSecret).toMatch(/^whsec_/);
});
