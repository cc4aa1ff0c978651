/**
 * The sandbox part: the partner flow on one machine. When no BROKER_URL is configured, `npm start` runs the brokerage
 * sandbox (broker/) beside the API, on the same PostgreSQL (schema `broker`), and wires both sides together; the
 * partner stack of the tests and benchmarks does the same:
 * - the sandbox's secrets — its EIP-712 signer (granted BROKER_SIGNER_ROLE on every issuer contract), the
 *   participants' credential and the issuer's callback credential — are generated once under DATA_DIR (`npm start`)
 *   or for the run (`newSandboxSecrets`);
 * - the broker calls the issuer with a partner-scoped API key, kept while it stays active;
 * - a client is onboarded with the development participant's email and its wallets enabled for the flow
 *   (`npm start`: the development write key's account and wallets, `onboardDevelopmentClient`), and the participant
 *   is connected through the sandbox's connect (which calls the issuer's), so a person can mint through the broker at once.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  DEVELOPMENT_PARTICIPANT,
  ISSUER_ACCOUNT_ID,
  brokerStackEntry,
  newBrokerCredential,
  seedBrokerSandbox,
  startBroker,
  type BrokerStackEntry,
  type Credential,
  type RunningBroker,
  type SeededSandbox,
  type StartBrokerOptions,
} from '../broker';
import type { Logger } from '../config/logger';
import { evmPrivateKeySchema } from '../signing/key-schemas';
import type { Database } from '../db/pool';
import { createApiKey, findActiveApiKey } from '../db/queries/api-keys';
import type { ChainDeploymentRecord } from '../db/queries/chain-deployments';
import { latestUnderlyingPrice } from '../db/queries/latest-prices';
import { setWalletPartnerEnabled } from '../db/queries/wallets';
import { upsertPartnerClient } from '../db/queries/partner-clients';
import { PARTNER_NETWORKS } from '../domain/partner';
import type { BrokerConnection } from '../partner/broker-client';
import type { Part } from './parts';

/** The issuer id participants name in `issuer` of a mint through the sandbox (stack.json `issuer.id`). */
export const DEVELOPMENT_ISSUER_ID = 'tokenized-stock-issuer';

const SECRETS_FILE = 'broker-sandbox.json';

const credentialSchema = z.object({ key: z.string().min(1), secret: z.string().min(1) });
const secretsSchema = z.object({ signerPrivateKey: evmPrivateKeySchema, participant: credentialSchema, issuer: credentialSchema, partnerApiKey: z.string().optional() });
type SandboxSecretsFile = z.infer<typeof secretsSchema>;

export interface SandboxSecrets {
  signer: PrivateKeyAccount;
  /** The authorized participants' basic-auth credential. */
  participant: Credential;
  /** The issuer's basic-auth credential for its callbacks and reads. */
  issuer: Credential;
  /** The partner key last handed to the broker (checked still active before it is reused). */
  partnerApiKey?: string;
  /** Records the partner key handed to the broker. */
  savePartnerKey(secret: string): void;
}

/** The sandbox's secrets from `<dataDir>/broker-sandbox.json` (mode 0600), generated on first start. */
export function loadSandboxSecrets(dataDir: string): SandboxSecrets {
  const file = path.join(dataDir, SECRETS_FILE);
  let stored: SandboxSecretsFile;
  try {
    stored = secretsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${file} is unreadable: delete it to generate new sandbox secrets`, { cause: error });
    stored = freshSecrets();
  }
  const save = () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  };
  save();
  return sandboxSecrets(stored, (next) => {
    stored = next;
    save();
  });
}

/** Secrets for this run only (the partner stack of the tests and benchmarks). */
export function newSandboxSecrets(): SandboxSecrets {
  return sandboxSecrets(freshSecrets(), () => undefined);
}

function freshSecrets(): SandboxSecretsFile {
  return { signerPrivateKey: generatePrivateKey(), participant: newBrokerCredential('ap'), issuer: newBrokerCredential('issuer') };
}

function sandboxSecrets(stored: SandboxSecretsFile, save: (stored: SandboxSecretsFile) => void): SandboxSecrets {
  const secrets: SandboxSecrets = {
    signer: privateKeyToAccount(stored.signerPrivateKey),
    participant: stored.participant,
    issuer: stored.issuer,
    partnerApiKey: stored.partnerApiKey,
    savePartnerKey(secret) {
      secrets.partnerApiKey = secret;
      save({ ...stored, partnerApiKey: secret });
    },
  };
  return secrets;
}

/** How the issuer's worker reaches the sandbox at `url`: the issuer's own account there, its credential. */
export function sandboxConnection(url: string, secrets: SandboxSecrets, options: { timeoutMs?: number } = {}): BrokerConnection {
  return { url, accountId: ISSUER_ACCOUNT_ID, key: secrets.issuer.key, secret: secrets.issuer.secret, ...options };
}

/** The sandbox's URL on `host`:`port`, known before it listens. */
export function sandboxUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export interface RunningSandbox extends Part {
  /** The broker as it runs now (`restart` replaces it). */
  broker: RunningBroker;
  url: string;
  seeded: SeededSandbox;
  partnerApiKey: string;
  stackEntry: BrokerStackEntry;
  /** Connects the development participant to the issuer through the sandbox (its client onboarded first). */
  connectParticipant(): Promise<void>;
  /** Starts the broker again after `broker.stop()`, on the same port. */
  restart(): Promise<void>;
}

export interface StartSandboxParameters {
  db: Database;
  logger: Logger;
  host: string;
  /** 0: a free port. */
  port: number;
  issuerApiUrl: string;
  /** The issuer id participants name in `issuer` of a mint (default `DEVELOPMENT_ISSUER_ID`). */
  issuerId?: string;
  /** Failed authentications a client address may make per minute at the sandbox (as on the API). */
  authFailuresPerMinute?: number;
  secrets: SandboxSecrets;
  deployments: ChainDeploymentRecord[];
  /** Top the development participant's positions back up to their seed (BROKER_SANDBOX_RESEED); default: seeded once. */
  reseed?: boolean;
  /** How fast the sandbox retries and looks for due work (the tests' are quicker than the defaults). */
  timing?: Pick<StartBrokerOptions, 'retryInitialMs' | 'retryMaxMs' | 'pollMs'>;
  /** The trading side's clock, fill latency and liquidity per fill (defaults: the real clock, 200 ms, all at once). */
  trading?: Pick<StartBrokerOptions, 'clock' | 'fillLatencyMs' | 'maxFillQty'>;
}

/** Seeds and starts the sandbox against the issuer API at `issuerApiUrl`, with a partner key of its own. */
export async function startSandbox(parameters: StartSandboxParameters): Promise<RunningSandbox> {
  const { db, secrets, deployments } = parameters;
  const issuerId = parameters.issuerId ?? DEVELOPMENT_ISSUER_ID;
  const partnerApiKey = await ensurePartnerKey(db, secrets);
  const seeded = await seedBrokerSandbox(db, { brokerCredential: secrets.participant, topUp: parameters.reseed });
  const issuerOf = (chain: string) => deployments.find((deployment) => deployment.chain === chain)?.issuer;
  const options: StartBrokerOptions = {
    db,
    host: parameters.host,
    port: parameters.port,
    issuerApiUrl: parameters.issuerApiUrl,
    partnerApiKey,
    issuerId,
    issuerCredential: secrets.issuer,
    brokerCredential: secrets.participant,
    signer: secrets.signer,
    issuerContracts: Object.fromEntries(Object.entries(PARTNER_NETWORKS).map(([network, chain]) => [network, issuerOf(chain)])),
    logger: parameters.logger.child({ component: 'broker-sandbox' }),
    authFailuresPerMinute: parameters.authFailuresPerMinute,
    // The sandbox fills orders at the product's latest price of the underlying.
    marketPrice: (symbol) => latestUnderlyingPrice(db, symbol),
    ...parameters.timing,
    ...parameters.trading,
  };
  const broker = await startBroker(options);
  const url = broker.url;
  const sandbox: RunningSandbox = {
    name: 'brokerage sandbox',
    deadlineMs: 15_000,
    broker,
    url,
    seeded,
    partnerApiKey,
    stackEntry: brokerStackEntry({
      url,
      brokerCredential: secrets.participant,
      signer: secrets.signer,
      issuerAccountId: seeded.issuerAccount.accountId,
      accounts: seeded.accounts,
    }),
    stop: () => sandbox.broker.stop(),
    async restart() {
      sandbox.broker = await startBroker({ ...options, port: Number(new URL(url).port) });
    },
    async connectParticipant() {
      const participant = seeded.accounts[0]!;
      const response = await fetch(`${url}/v1/accounts/${participant.accountId}/tokenization/connect`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${secrets.participant.key}:${secrets.participant.secret}`).toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ issuer: issuerId }),
      });
      if (!response.ok) throw new Error(`connecting the development participant answered ${response.status}: ${await response.text()}`);
    },
  };
  return sandbox;
}

/** Onboards `clientId` as the development participant's client, its wallets enabled for the flow on every chain deployed. */
export async function onboardDevelopmentClient(
  db: Database,
  client: { accountId: string; wallets: `0x${string}`[] },
  deployments: ChainDeploymentRecord[],
): Promise<void> {
  await upsertPartnerClient(db, { clientId: client.accountId, email: DEVELOPMENT_PARTICIPANT.email, eligible: true });
  for (const deployment of deployments) {
    for (const wallet of client.wallets) {
      await setWalletPartnerEnabled(db, { chain: deployment.chain, address: wallet, clientId: client.accountId, enabled: true });
    }
  }
}

/** The partner key recorded with the secrets while it is active, otherwise a new one (recorded). */
async function ensurePartnerKey(db: Database, secrets: SandboxSecrets): Promise<string> {
  if (secrets.partnerApiKey && (await findActiveApiKey(db, secrets.partnerApiKey))?.scope === 'partner') return secrets.partnerApiKey;
  const { secret } = await createApiKey(db, { name: 'brokerage sandbox (partner)', scope: 'partner', development: true });
  secrets.savePartnerKey(secret);
  return secret;
}
