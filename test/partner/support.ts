/**
 * The partner flow end to end on one machine: a local anvil chain with the product's contracts (the broker's signer
 * granted its role), the issuer API listening on a real port, the brokerage sandbox calling it with a partner key,
 * the product's workflows on a worker with chain and broker activities, and the chain watcher. The development
 * participant is connected through the sandbox to an onboarded client whose wallet (anvil account 3) is enabled.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import request from 'supertest';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createActivities } from '../../activities';
import { newBrokerCredential, seedBrokerSandbox, startBroker, type Credential, type RunningBroker, type SeededSandbox } from '../../broker';
import { chainTokenAddresses } from '../../db/queries/chains';
import { createApiKey, findActiveApiKey } from '../../db/queries/api-keys';
import { BrokerClient } from '../../partner/broker-client';
import { chainWatcherWorkflowId } from '../../temporal/workflow-ids';
import type { chainWatcherWorkflow } from '../../workflows';
import { createTestApi, type TestApi } from '../support/api';
import { startTestChain, type TestChain } from '../support/chains';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually, startProductTemporal, type ProductTemporal } from '../support/temporal';

export const ISSUER_ID = 'issuer-e2e';
export const CLIENT_EMAIL = 'ap@sandbox.test';
export const WALLET_INDEX = 3;

export interface PartnerStack {
  database: TestDb;
  chain: TestChain;
  temporal: ProductTemporal;
  api: TestApi;
  apiUrl: string;
  partnerKey: string;
  broker: RunningBroker;
  seeded: SeededSandbox;
  participant: Credential;
  issuerCredential: Credential;
  /** The client (issuer account) the participant is connected to. */
  clientId: string;
  /** The development participant's sandbox account id. */
  accountId: string;
  wallet: `0x${string}`;
  tokens: Record<string, `0x${string}`>;
  /** Starts the worker again (after `temporal.stopWorker()`), with the chain and broker activities. */
  startWorker(): Promise<void>;
  /** Starts the sandbox again after `broker.stop()` (same database, same port). */
  restartBroker(): Promise<void>;
  close(): Promise<void>;
}

export function basic(credential: Credential): string {
  return `Basic ${Buffer.from(`${credential.key}:${credential.secret}`).toString('base64')}`;
}

/** A call to the sandbox as the development participant. */
export function brokerGet(stack: PartnerStack, path: string) {
  return request(stack.broker.url).get(path).set('authorization', basic(stack.participant));
}

export function brokerPost(stack: PartnerStack, path: string, body: object, idempotencyKey?: string) {
  const call = request(stack.broker.url).post(path).set('authorization', basic(stack.participant));
  return (idempotencyKey ? call.set('idempotency-key', idempotencyKey) : call).send(body);
}

export async function startPartnerStack(): Promise<PartnerStack> {
  const database = await cloneTemplateDatabase();
  const brokerSigner = privateKeyToAccount(generatePrivateKey());
  const chain = await startTestChain(database.db, 'ethereum-1', { brokerSigner: brokerSigner.address });
  const temporal = await startProductTemporal(createActivities({ db: database.db }));
  await temporal.stopWorker();
  const api = await createTestApi({ database, temporal: temporal.client, taskQueue: temporal.taskQueue, fixtureDeployments: false });
  const server: Server = createServer(api.app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const partnerKey = (await createApiKey(database.db, { name: 'brokerage partner', scope: 'partner' })).secret;

  const participant = newBrokerCredential('ap');
  const issuerCredential = newBrokerCredential('issuer');
  const seeded = await seedBrokerSandbox(database.db, { brokerCredential: participant });
  const brokerOptions = {
    db: database.db,
    host: '127.0.0.1',
    port: 0,
    issuerApiUrl: apiUrl,
    partnerApiKey: partnerKey,
    issuerId: ISSUER_ID,
    issuerCredential,
    brokerCredential: participant,
    signer: brokerSigner,
    issuerContracts: { ethereum: chain.deployment.issuer },
    logger: pino({ level: 'silent' }),
    retryInitialMs: 100,
    retryMaxMs: 1_000,
    pollMs: 100,
  };
  const stack = {} as PartnerStack;
  let broker = await startBroker(brokerOptions);
  const brokerPort = Number(new URL(broker.url).port);

  const startWorker = () =>
    temporal.startWorker(
      createActivities({
        db: database.db,
        chains: { chains: { [chain.chain]: chain.context }, issuer: chain.issuer, temporal: temporal.client, taskQueue: temporal.taskQueue, confirmations: 0, blockRange: 50 },
        broker: new BrokerClient({ url: broker.url, accountId: seeded.issuerAccount.accountId, key: issuerCredential.key, secret: issuerCredential.secret, timeoutMs: 2_000 }),
      }),
    );
  await startWorker();
  await temporal.client.workflow.start<typeof chainWatcherWorkflow>('chainWatcherWorkflow', {
    workflowId: chainWatcherWorkflowId(chain.context.network.chainId),
    taskQueue: temporal.taskQueue,
    args: [{ chain: chain.chain, pollIntervalMs: 200 }],
  });

  // Onboard the write key's account as the client, enable its wallet, connect the participant through the sandbox.
  const clientId = (await findActiveApiKey(database.db, api.keys.write))!.accountId!;
  const wallet = getAddress(chain.walletOf(WALLET_INDEX).account.address);
  Object.assign(stack, {
    database,
    chain,
    temporal,
    api,
    apiUrl,
    partnerKey,
    seeded,
    participant,
    issuerCredential,
    clientId,
    accountId: seeded.accounts[0]!.accountId,
    wallet,
    tokens: await chainTokenAddresses(database.db, chain.chain),
    startWorker,
    async restartBroker() {
      broker = await startBroker({ ...brokerOptions, port: brokerPort });
      stack.broker = broker;
    },
    async close() {
      await temporal.client.workflow.getHandle(chainWatcherWorkflowId(chain.context.network.chainId)).terminate('test over').catch(() => undefined);
      await temporal.teardown();
      await stack.broker.stop().catch(() => undefined);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await chain.stop();
      await database.drop();
    },
  });
  stack.broker = broker;

  const onboard = await api.http.put(`/v1/tokenization/clients/${clientId}`).set('x-api-key', api.keys.admin).send({ email: CLIENT_EMAIL });
  if (onboard.status !== 200) throw new Error(`onboarding answered ${onboard.status}: ${JSON.stringify(onboard.body)}`);
  const enabled = await api.http.post(`/v1/tokenization/clients/${clientId}/wallets`).set('x-api-key', api.keys.admin).send({ chainId: 'ethereum-1', address: wallet });
  if (![200, 202].includes(enabled.status)) throw new Error(`enabling the wallet answered ${enabled.status}: ${JSON.stringify(enabled.body)}`);
  await eventually(async () => {
    const client = await api.http.get(`/v1/tokenization/clients/${clientId}`).set('x-api-key', api.keys.admin);
    expect(client.body.wallets).toContainEqual(expect.objectContaining({ address: wallet.toLowerCase(), registration: 'registered' }));
  }, 30_000);
  const connected = await brokerPost(stack, `/v1/accounts/${stack.accountId}/tokenization/connect`, { issuer: ISSUER_ID });
  if (connected.status !== 200) throw new Error(`connect answered ${connected.status}: ${JSON.stringify(connected.body)}`);
  return stack;
}
