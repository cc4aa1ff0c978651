/**
 * The sandbox throttles failed authentications per client address as the issuer's API does: credentials it has not
 * checked yet are never refused in a first burst, wrong ones cost one failure each (401 with the failed-auth RateLimit
 * fields), and past the budget the address gets 429 RATE_LIMITED before its credentials are looked up — while
 * credentials it knows to be valid keep working.
 */
import request from 'supertest';
import { basic, sandboxForThisFile, type BrokerTestDb, type TestSandbox } from './support';

let database: BrokerTestDb;
let sandbox: TestSandbox;
const lookups: string[] = [];

sandboxForThisFile((started) => ({ database, sandbox } = started), { authFailuresPerMinute: 3 });

beforeAll(async () => {
  const query = database.db.query.bind(database.db);
  database.db.query = (async (text: unknown, ...rest: unknown[]) => {
    if (typeof text === 'string' && text.includes('broker.credentials')) {
      lookups.push(text);
      // Slow credential checks, so that a burst's requests are all in flight together.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return await (query as (...args: unknown[]) => Promise<unknown>)(text, ...rest);
  }) as typeof database.db.query;
});

const account = (authorization: string) => request(sandbox.broker.url).get(`/v1/accounts/${sandbox.accountId}`).set('authorization', authorization);

test('a first burst of valid credentials, more requests at once than failures are allowed, is answered in full', async () => {
  const answers = await Promise.all(Array.from({ length: 12 }, () => account(basic(sandbox.participant))));
  expect(answers.map((response) => response.status)).toEqual(Array(12).fill(200));
});

test('wrong credentials: 3 a minute get 401, then 429 without a lookup; known credentials still work', async () => {
  lookups.length = 0;
  const answers = await Promise.all(Array.from({ length: 8 }, (_, index) => account(basic({ key: sandbox.participant.key, secret: `wrong-${index}` }))));
  const statuses = answers.map((response) => response.status).sort();
  expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
  expect(lookups).toHaveLength(3);
  for (const response of answers) {
    expect(response.headers['ratelimit-policy']).toBe('"failed-auth";q=3;w=60');
    expect(response.headers.ratelimit).toMatch(/^"failed-auth";r=\d+;t=\d+$/);
  }
  const refused = answers.find((response) => response.status === 429)!;
  expect(refused.body).toEqual({ code: 'RATE_LIMITED', message: expect.stringContaining('failed authentications'), documentation: expect.stringContaining('#rate_limited') });
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(answers.find((response) => response.status === 401)!.headers['www-authenticate']).toMatch(/^Basic /);

  expect((await account(basic(sandbox.participant))).status).toBe(200);
  // Credentials the sandbox has not seen valid wait out the address's refusal like any other.
  expect((await account(basic(sandbox.issuerCredential))).status).toBe(429);
});
