/**
 * What the sandbox's tests share: a database of their own (created from TEST_DATABASE_URL, dropped after), a real
 * local HTTP server standing in for the issuer's partner API that records every call, and a running sandbox
 * seeded with the development participant linked to a client id.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool } from 'pg';
import { getAddress } from 'viem';
import pino from 'pino';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createScratchDatabase, type ScratchDatabase } from '../../harness/database';
import { pinnedClock } from '../../harness/settings';
import { testServerUrl } from '../support/database';
import { linkClient, newBrokerCredential, seedBrokerSandbox, startBroker, type Credential, type RunningBroker, type SeededSandbox, type StartBrokerOptions } from '../../broker';

export type BrokerTestDb = ScratchDatabase;

export function createBrokerTestDb(): Promise<BrokerTestDb> {
  return createScratchDatabase(testServerUrl(), { prefix: 'broker', poolSize: 20 });
}

export interface RecordedCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface IssuerAnswer {
  status: number;
  body: unknown;
  /** Answers this late (to outlast the sandbox's timeout). */
  delayMs?: number;
}

/** Answers a call; undefined answers as the documented issuer would. */
export type IssuerBehaviour = (call: RecordedCall, index: number) => IssuerAnswer | undefined;

export interface FakeIssuer {
  url: string;
  calls: RecordedCall[];
  /** Calls to one path. */
  callsTo(path: string): RecordedCall[];
  /** Replaces the behaviour for the calls still to come. */
  behave(behaviour: IssuerBehaviour): void;
  /** Makes the issuer know a client by email, so that connect answers its client id (once). */
  registerClient(email: string, clientId: string): void;
  stop(): Promise<void>;
}

export const ISSUANCE_PATH = '/v1/tokenization/inkind/issuance';
export const CONFIRM_PATH = '/v1/tokenization/inkind/issuance/confirm';
export const CONNECT_PATH = '/v1/tokenization/accounts/connect';

/**
 * A real HTTP server answering as the documented issuer: issuance → `{issuer_request_id, status: "created"}` (the
 * same id again for the same request), confirm → 200, connect → 201 `{client_id}` for a registered email (404 for
 * an unknown one, 409 once it is linked).
 */
export async function startFakeIssuer(partnerApiKey: string): Promise<FakeIssuer> {
  const calls: RecordedCall[] = [];
  const issued = new Map<string, string>();
  const clients = new Map<string, { clientId: string; linked: boolean }>();
  let behaviour: IssuerBehaviour = () => undefined;
  const documented = (call: RecordedCall): IssuerAnswer => {
    if (call.headers['x-api-key'] !== partnerApiKey) return { status: 401, body: { code: 'INVALID_API_KEY', message: 'Invalid API key' } };
    const body = JSON.parse(call.body) as Record<string, unknown>;
    if (call.path === ISSUANCE_PATH) {
      const id = String(body.tokenization_request_id);
      if (!issued.has(id)) issued.set(id, `ir_${issued.size + 1}_${randomBytes(4).toString('hex')}`);
      return { status: 201, body: { issuer_request_id: issued.get(id), status: 'created' } };
    }
    if (call.path === CONFIRM_PATH) return { status: 200, body: { issuer_request_id: body.issuer_request_id, status: body.status } };
    if (call.path === CONNECT_PATH) {
      const client = clients.get(String(body.email));
      if (!client) return { status: 404, body: { code: 'CLIENT_NOT_FOUND', message: 'No client with this email' } };
      if (client.linked) return { status: 409, body: { code: 'ACCOUNT_ALREADY_LINKED', message: 'This client is already linked to a brokerage account' } };
      client.linked = true;
      return { status: 201, body: { client_id: client.clientId } };
    }
    return { status: 404, body: { code: 'RESOURCE_NOT_FOUND', message: 'no route' } };
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const call: RecordedCall = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = calls.length;
      calls.push(call);
      const answer = behaviour(call, index) ?? documented(call);
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      }, answer.delayMs ?? 0).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    callsTo: (path) => calls.filter((call) => call.path === path),
    behave: (next) => {
      behaviour = next;
    },
    registerClient: (email, clientId) => {
      clients.set(email, { clientId, linked: false });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export const ISSUER_ID = 'issuer-test';
export const CLIENT_ID = 'client-dev-1';
export const ISSUER_CONTRACTS = {
  ethereum: '0x1111111111111111111111111111111111111111',
  binance: '0x5656565656565656565656565656565656565656',
} as const;
/** A checksummed wallet address. */
export const WALLET = getAddress('0x70997970c51812dc3a010c7d76d6d3c4ae1e5f05');
/** The same address with one letter's case flipped: a bad checksum. */
export const BAD_CHECKSUM_WALLET = WALLET.replace(/[a-f]/, (letter) => letter.toUpperCase());

export interface TestSandbox {
  db: Pool;
  broker: RunningBroker;
  issuer: FakeIssuer;
  seeded: SeededSandbox;
  participant: Credential;
  issuerCredential: Credential;
  partnerApiKey: string;
  signer: PrivateKeyAccount;
  /** The development participant's account id (linked to CLIENT_ID). */
  accountId: string;
  issuerAccountId: string;
  /** Starts the sandbox again on the same database (after `broker.stop()`), with the same configuration. */
  restart(overrides?: Partial<StartBrokerOptions>): Promise<RunningBroker>;
  close(): Promise<void>;
}

/** The sandbox's prices in these tests (USD per share). */
export const TEST_PRICES: Record<string, string> = { AAPL: '200.25', NVDA: '120.5', TSLA: '300', MSFT: '410.1', AMZN: '180' };

/** The sandbox on `db`, talking to a fake issuer, with quick retries, trading in a regular session at `TEST_PRICES`. */
export async function startTestSandbox(db: Pool, overrides: Partial<StartBrokerOptions> = {}): Promise<TestSandbox> {
  const participant = newBrokerCredential('ap');
  const issuerCredential = newBrokerCredential('iss');
  const partnerApiKey = `partner_${randomBytes(8).toString('hex')}`;
  const signer = privateKeyToAccount(generatePrivateKey());
  const issuer = await startFakeIssuer(partnerApiKey);
  const seeded = await seedBrokerSandbox(db, { brokerCredential: participant });
  const accountId = seeded.accounts[0]!.accountId;
  await linkClient(db, accountId, CLIENT_ID);
  const options: StartBrokerOptions = {
    db,
    host: '127.0.0.1',
    port: 0,
    issuerApiUrl: issuer.url,
    partnerApiKey,
    issuerId: ISSUER_ID,
    issuerCredential,
    brokerCredential: participant,
    signer,
    issuerContracts: { ...ISSUER_CONTRACTS },
    logger: pino({ level: 'silent' }),
    retryInitialMs: 20,
    retryMaxMs: 200,
    pollMs: 50,
    issuerTimeoutMs: 2_000,
    // High enough not to matter; test/broker/failed-auth.test.ts sets its own.
    authFailuresPerMinute: 10_000,
    marketPrice: async (symbol) => TEST_PRICES[symbol],
    clock: pinnedClock(),
    fillLatencyMs: 50,
    ...overrides,
  };
  const sandbox: TestSandbox = {
    db,
    broker: await startBroker(options),
    issuer,
    seeded,
    participant,
    issuerCredential,
    partnerApiKey,
    signer,
    accountId,
    issuerAccountId: seeded.issuerAccount.accountId,
    async restart(more = {}) {
      sandbox.broker = await startBroker({ ...options, ...more });
      return sandbox.broker;
    },
    async close() {
      await sandbox.broker.stop();
      await issuer.stop();
    },
  };
  return sandbox;
}

/**
 * A scratch database and a sandbox on it for the whole test file: started before its tests (`use` is handed them),
 * closed and dropped after. Further set-up goes in the file's own `beforeAll`, which runs after this one.
 */
export function sandboxForThisFile(use: (started: { database: BrokerTestDb; sandbox: TestSandbox }) => void, overrides: Partial<StartBrokerOptions> = {}): void {
  let database: BrokerTestDb | undefined;
  let sandbox: TestSandbox | undefined;
  beforeAll(async () => {
    database = await createBrokerTestDb();
    sandbox = await startTestSandbox(database.db, overrides);
    use({ database, sandbox });
  }, 60_000);
  afterAll(async () => {
    await sandbox?.close();
    await database?.drop();
  });
}

export function basic(credential: Credential): string {
  return `Basic ${Buffer.from(`${credential.key}:${credential.secret}`).toString('base64')}`;
}

/** Polls `probe` until it returns a value other than undefined. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Row counts of the sandbox's tables that a refused request must leave unchanged. */
export async function tableCounts(db: Pool): Promise<Record<string, number>> {
  const { rows } = await db.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM broker.tokenization_requests) AS requests,
            (SELECT count(*) FROM broker.journal) AS journal,
            (SELECT count(*) FROM broker.idempotent_responses) AS idempotent_responses,
            (SELECT count(*) FROM broker.accounts WHERE client_id IS NOT NULL) AS linked_accounts`,
  );
  return Object.fromEntries(Object.entries(rows[0]!).map(([key, value]) => [key, Number(value)]));
}

export async function position(db: Pool, accountId: string, symbol: string): Promise<string> {
  const { rows } = await db.query<{ qty: string }>('SELECT qty::text AS qty FROM broker.positions WHERE account_id = $1 AND symbol = $2', [accountId, symbol]);
  return rows[0]?.qty ?? '0';
}

export interface RecordRow {
  status: string;
  transfer_status: string;
  step: string;
  issuer_request_id: string | null;
  tx_hash: string | null;
  reason: string | null;
}

export async function recordRow(db: Pool, id: string): Promise<RecordRow | undefined> {
  const { rows } = await db.query<RecordRow>(
    'SELECT status, transfer_status, step, issuer_request_id, tx_hash, reason FROM broker.tokenization_requests WHERE tokenization_request_id = $1',
    [id],
  );
  return rows[0];
}
