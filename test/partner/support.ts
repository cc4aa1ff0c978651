/**
 * The partner stack (harness/partner-stack.ts) on a fresh clone of the test database, with the chain watcher polling
 * every 200 ms, a supertest agent on the issuer app, and supertest calls to the sandbox as the development participant.
 */
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { basic, startPartnerStack as startHarnessStack, type PartnerApi, type PartnerStack as HarnessPartnerStack } from '../../harness/partner-stack';
import { cloneTemplateDatabase } from '../support/database';

export { basic, CLIENT_EMAIL, ISSUER_ID, WALLET_INDEX } from '../../harness/partner-stack';

export interface PartnerStack extends HarnessPartnerStack {
  api: PartnerApi & { http: TestAgent };
}

export async function startPartnerStack(options: Omit<Parameters<typeof startHarnessStack>[0], 'database'> = {}): Promise<PartnerStack> {
  const stack = await startHarnessStack({ database: await cloneTemplateDatabase(), chainPollIntervalMs: 200, ...options });
  return Object.assign(stack, { api: { ...stack.api, http: request(stack.api.app.koa.callback()) } });
}

/** A call to the sandbox as the development participant. */
export function brokerGet(stack: PartnerStack, path: string) {
  return request(stack.broker.url).get(path).set('authorization', basic(stack.participant));
}

export function brokerPost(stack: PartnerStack, path: string, body: object, idempotencyKey?: string) {
  const call = request(stack.broker.url).post(path).set('authorization', basic(stack.participant));
  return (idempotencyKey ? call.set('idempotency-key', idempotencyKey) : call).send(body);
}
