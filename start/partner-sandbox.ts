/**
 * The partner flow on one machine: when no BROKER_URL is configured, `npm start` runs the brokerage sandbox
 * (broker/) beside the API, on the same PostgreSQL (schema `broker`), and wires both sides together:
 * - the sandbox's secrets — its EIP-712 signer (granted BROKER_SIGNER_ROLE on every issuer contract), the
 *   participants' credential and the issuer's callback credential — are generated once under DATA_DIR;
 * - the broker calls the issuer with a partner-scoped API key, kept while it stays active;
 * - the development write key's account is onboarded as a client with the development participant's email, its
 *   development wallets are enabled for the flow on every chain, and the participant is connected through the
 *   sandbox's connect (which calls the issuer's), so a person can mint through the broker at once.
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
} from '../broker';
import type { Logger } from '../config/logger';
import { evmPrivateKeySchema } from '../signing/key-schemas';
import type { Database } from '../db/pool';
import { createApiKey, findActiveApiKey } from '../db/queries/api-keys';
import type { ChainDeploymentRecord } from '../db/queries/chains';
import { setWalletPartnerEnabled, upsertPartnerClient } from '../db/queries/partner';
import { PARTNER_NETWORKS } from '../domain/partner';
import type { BrokerConnection } from '../partner/broker-client';

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
    stored = { signerPrivateKey: generatePrivateKey(), participant: newBrokerCredential('ap'), issuer: newBrokerCredential('issuer') };
  }
  const save = () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  };
  save();
  const secrets: SandboxSecrets = {
    signer: privateKeyToAccount(stored.signerPrivateKey),
    participant: stored.participant,
    issuer: stored.issuer,
    partnerApiKey: stored.partnerApiKey,
    savePartnerKey(secret) {
      stored = { ...stored, partnerApiKey: secret };
      secrets.partnerApiKey = secret;
      save();
    },
  };
  return secrets;
}

/** How the issuer's worker reaches the sandbox: its fixed address and the issuer's own account there. */
export function sandboxConnection(host: string, port: number, secrets: SandboxSecrets): BrokerConnection {
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, accountId: ISSUER_ACCOUNT_ID, key: secrets.issuer.key, secret: secrets.issuer.secret };
}

export interface RunningSandbox {
  broker: RunningBroker;
  stackEntry: BrokerStackEntry;
}

/**
 * Seeds and starts the sandbox against the issuer API at `issuerApiUrl`, then connects the development participant
 * to `client` (onboarded, its wallets enabled for the flow).
 */
export async function startSandbox(parameters: {
  db: Database;
  logger: Logger;
  host: string;
  port: number;
  issuerApiUrl: string;
  /** Failed authentications a client address may make per minute at the sandbox (as on the API). */
  authFailuresPerMinute?: number;
  secrets: SandboxSecrets;
  deployments: ChainDeploymentRecord[];
  client: { accountId: string; wallets: `0x${string}`[] };
}): Promise<RunningSandbox> {
  const { db, secrets, deployments } = parameters;
  const partnerApiKey = await ensurePartnerKey(db, secrets);
  const seeded = await seedBrokerSandbox(db, { brokerCredential: secrets.participant });
  const issuerOf = (chain: string) => deployments.find((deployment) => deployment.chain === chain)?.issuer;
  const broker = await startBroker({
    db,
    host: parameters.host,
    port: parameters.port,
    issuerApiUrl: parameters.issuerApiUrl,
    partnerApiKey,
    issuerId: DEVELOPMENT_ISSUER_ID,
    issuerCredential: secrets.issuer,
    brokerCredential: secrets.participant,
    signer: secrets.signer,
    issuerContracts: Object.fromEntries(Object.entries(PARTNER_NETWORKS).map(([network, chain]) => [network, issuerOf(chain)])),
    logger: parameters.logger.child({ component: 'broker-sandbox' }),
    authFailuresPerMinute: parameters.authFailuresPerMinute,
  });
  try {
    await upsertPartnerClient(db, { clientId: parameters.client.accountId, email: DEVELOPMENT_PARTICIPANT.email, eligible: true });
    for (const deployment of deployments) {
      for (const wallet of parameters.client.wallets) {
        await setWalletPartnerEnabled(db, { chain: deployment.chain, address: wallet, clientId: parameters.client.accountId, enabled: true });
      }
    }
    const participant = seeded.accounts[0]!;
    const response = await fetch(`${broker.url}/v1/accounts/${participant.accountId}/tokenization/connect`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${secrets.participant.key}:${secrets.participant.secret}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ issuer: DEVELOPMENT_ISSUER_ID }),
    });
    if (!response.ok) throw new Error(`connecting the development participant answered ${response.status}: ${await response.text()}`);
    const stackEntry = brokerStackEntry({
      url: broker.url,
      brokerCredential: secrets.participant,
      signer: secrets.signer,
      issuerAccountId: seeded.issuerAccount.accountId,
      accounts: seeded.accounts,
    });
    return { broker, stackEntry };
  } catch (error) {
    await broker.stop();
    throw error;
  }
}

/** The partner key recorded with the secrets while it is active, otherwise a new one (recorded). */
async function ensurePartnerKey(db: Database, secrets: SandboxSecrets): Promise<string> {
  if (secrets.partnerApiKey && (await findActiveApiKey(db, secrets.partnerApiKey))?.scope === 'partner') return secrets.partnerApiKey;
  const { secret } = await createApiKey(db, { name: 'brokerage sandbox (partner)', scope: 'partner' });
  secrets.savePartnerKey(secret);
  return secret;
}
