/**
 * Every string field of every operation in the OpenAPI document — path parameters, query parameters and JSON body
 * fields, nested ones included — sent a NUL character, a lone surrogate and an over-long value, with a key of the
 * operation's access level and the other fields valid: never a 5xx. Text PostgreSQL cannot store (NUL, lone
 * surrogates) is a 400 in the documented shape wherever it can be sent, and nothing is written. Every answer is also
 * checked against the document (CHECK_ANSWERS=fail), so each code is one the operation declares.
 */
import type { Test } from 'supertest';
import type { Access } from '../../api/contract/operation';
import { API_RESOURCES, openApiDocument } from '../../api/resources';
import { TEST_BASE_URL, type TestApi } from '../support/api';
import { ADDRESS, VALID_PARAMETERS } from '../support/valid-parameters';
import { startWalkApi, type WalkApi } from '../support/walk-api';

type JsonSchema = Record<string, unknown> & { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; enum?: unknown[] };
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}
interface DocumentOperation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
}

const document = openApiDocument(TEST_BASE_URL);
const accessOf = new Map<string, Access>(API_RESOURCES.flatMap((resource) => resource.operations.map((operation) => [operation.operationId, operation.access] as const)));
/** A valid body of each operation that takes one; its string fields are probed one at a time. */
const VALID_BODIES: Record<string, () => Record<string, unknown>> = {
  createAttestation: () => ({ symbol: 'SPYon', side: 'buy', tokenAmount: '1', duration: 'short', chainId: 'ethereum-1' }),
  createSoftQuote: () => ({ symbol: 'SPYon', side: 'buy', tokenAmount: '1', duration: 'short', chainId: 'ethereum-1' }),
  updateSessionLimit: () => ({ tradable: true, maxAttestationCount: '20', maxActiveNotionalValue: '250000', maxSessionNotionalValue: '1000000' }),
  pauseMarket: () => ({ reason: 'drill' }),
  pauseChain: () => ({ reason: 'drill' }),
  setAllowListRequired: () => ({ required: true }),
  scheduleAssetStatusEvent: () => ({ symbol: 'AAPLon', code: 'ASSET_PAUSED', reason: 'cash_dividend', start: 4_102_444_800_000, end: 4_102_448_400_000 }),
  pauseAsset: () => ({ reason: 'drill' }),
  limitAsset: () => ({ reason: 'drill' }),
  connectPartnerAccount: () => ({ email: 'nobody@issuer.test', account: 'SBX-NOBODY' }),
  submitIssuance: () => ({
    tokenization_request_id: 'tr-nobody',
    qty: '1',
    underlying_symbol: 'AAPL',
    token_symbol: 'AAPLon',
    network: 'ethereum',
    client_id: 'acct-nobody',
    wallet_address: ADDRESS,
    created: Math.floor(Date.now() / 1000),
    nonce: '1',
    broker_signature: `0x${'11'.repeat(65)}`,
  }),
  confirmIssuance: () => ({ tokenization_request_id: 'tr-nobody', issuer_request_id: 'mint-nobody', status: 'completed', reason: 'journalled' }),
  onboardPartnerClient: () => ({ email: 'nobody@issuer.test', partnerAccount: 'SBX-NOBODY' }),
  enablePartnerWallet: () => ({ chainId: 'ethereum-1', address: ADDRESS }),
  resumePartnerRequest: () => ({ clientId: 'acct-nobody' }),
  rejectPartnerRequest: () => ({ reason: 'given up' }),
  registerWallet: () => ({ chainId: 'ethereum-1', address: ADDRESS }),
  createWebhook: () => ({ url: 'http://127.0.0.1:9/walk', events: ['attestation.executed'], description: 'a receiver' }),
  ingestTicks: () => ({ ticks: [{ symbol: 'AAPLon', timestamp: 1_700_000_000_000, underlyingPrice: '190.5', underlyingVolume: '10' }] }),
};

/** What each probe sends in a JSON body, and in a URL (percent-encoded). */
const PROBES = {
  nul: { json: 'AAPLon\u0000x', url: 'AAPLon%00x' },
  loneSurrogate: { json: 'AAPLon\ud800x', url: 'AAPLon%ED%A0%80x' },
  overLong: { json: 'A'.repeat(20_000), url: 'A'.repeat(4_000) },
} as const;
type ProbeName = keyof typeof PROBES;

function isStringSchema(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  if (schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'))) return true;
  if (schema.enum?.some((value) => typeof value === 'string')) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(isStringSchema);
}

/** The paths of every string field of `schema`, walking objects and arrays (an array's first item), as `body` has them. */
function stringFields(schema: JsonSchema, body: unknown, path: (string | number)[] = []): (string | number)[][] {
  const fields: (string | number)[][] = [];
  const variants = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  for (const variant of variants) {
    if (variant.properties) {
      for (const [name, property] of Object.entries(variant.properties)) {
        if (isStringSchema(property)) fields.push([...path, name]);
        const value = (body as Record<string, unknown> | undefined)?.[name];
        if (property.properties || property.items) fields.push(...stringFields(property, value, [...path, name]));
      }
    }
    if (variant.items && Array.isArray(body) && body.length > 0) {
      if (isStringSchema(variant.items)) fields.push([...path, 0]);
      fields.push(...stringFields(variant.items, body[0], [...path, 0]));
    }
  }
  return fields.filter((field, index) => fields.findIndex((other) => other.join('.') === field.join('.')) === index);
}

function withValue(body: Record<string, unknown>, field: (string | number)[], value: string): Record<string, unknown> {
  const copy = structuredClone(body);
  let target: Record<string | number, unknown> = copy;
  for (const step of field.slice(0, -1)) {
    target[step] ??= typeof field[field.indexOf(step) + 1] === 'number' ? [] : {};
    target = target[step] as Record<string | number, unknown>;
  }
  target[field.at(-1)!] = value;
  return copy;
}

interface Case {
  name: string;
  operationId: string;
  method: string;
  url: string;
  body?: Record<string, unknown>;
  probe: ProbeName;
  field: string;
}

function cases(): Case[] {
  const list: Case[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const operation = raw as unknown as DocumentOperation;
      const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in !== 'header');
      const urlWith = (probed: Parameter | undefined, value: string): string => {
        let url = path.replace(/\{(\w+)\}/g, (_, name: string) => (probed?.in === 'path' && probed.name === name ? value : encodeURIComponent(VALID_PARAMETERS[name] ?? 'x')));
        const query = parameters
          .filter((parameter) => parameter.in === 'query')
          .flatMap((parameter) => {
            if (parameter === probed) return [`${parameter.name}=${value}`];
            const valid = VALID_PARAMETERS[parameter.name];
            if (parameter.required && valid === undefined) throw new Error(`no valid value for the required query parameter ${parameter.name}: add one to VALID_PARAMETERS`);
            return valid === undefined ? [] : [`${parameter.name}=${encodeURIComponent(valid)}`];
          });
        if (query.length > 0) url += `?${query.join('&')}`;
        return url;
      };
      const validBody = operation.requestBody ? VALID_BODIES[operation.operationId] : undefined;
      if (operation.requestBody && !validBody) throw new Error(`no valid body for ${operation.operationId}: add one to VALID_BODIES`);
      for (const probe of Object.keys(PROBES) as ProbeName[]) {
        for (const parameter of parameters.filter((candidate) => isStringSchema(candidate.schema))) {
          list.push({
            name: `${operation.operationId} ${parameter.in} ${parameter.name}: ${probe}`,
            operationId: operation.operationId,
            method,
            url: urlWith(parameter, PROBES[probe].url),
            ...(validBody ? { body: validBody() } : {}),
            probe,
            field: parameter.name,
          });
        }
        if (validBody) {
          const schema = operation.requestBody!.content['application/json']!.schema;
          for (const field of stringFields(schema, validBody())) {
            list.push({
              name: `${operation.operationId} body ${field.join('.')}: ${probe}`,
              operationId: operation.operationId,
              method,
              url: urlWith(undefined, ''),
              body: withValue(validBody(), field, PROBES[probe].json),
              probe,
              field: String(field[0]),
            });
          }
        }
      }
    }
  }
  return list;
}

const ALL_CASES = cases();

let walk: WalkApi;
let api: TestApi;
let keyOf: WalkApi['keyOf'];

beforeAll(async () => {
  walk = await startWalkApi('string-fields');
  ({ api, keyOf } = walk);
}, 60_000);

afterAll(() => walk?.close());

/** Row counts of every table of the product's schema. */
async function rowCounts(): Promise<Record<string, number>> {
  const { rows } = await api.db.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`);
  const counts: Record<string, number> = {};
  for (const { table_name: table } of rows) counts[table] = (await api.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0]!.n;
  return counts;
}

async function send(item: Case): Promise<{ status: number; body: Record<string, unknown> }> {
  const key = keyOf[accessOf.get(item.operationId)!];
  let call = (api.http as unknown as Record<string, (url: string) => Test>)[item.method]!(item.url).timeout({ response: 10_000 });
  if (key) call = call.set('x-api-key', key);
  if (item.body) call = call.set('content-type', 'application/json').send(JSON.stringify(item.body));
  const response = await call;
  return { status: response.status, body: response.body as Record<string, unknown> };
}

test('the walk covers path, query and body fields of the document', () => {
  const names = ALL_CASES.map((item) => item.name);
  for (const expected of [
    'getMarketData path symbol: nul',
    'listPartnerRequests query clientId: nul',
    'confirmIssuance body reason: nul',
    'ingestTicks body ticks.0.symbol: loneSurrogate',
    'disablePartnerWallet path address: overLong',
  ]) {
    expect(names).toContain(expected);
  }
});

describe('text PostgreSQL cannot store is a 400 in the documented shape, and nothing is written', () => {
  const before: { counts?: Record<string, number> } = {};
  beforeAll(async () => {
    before.counts = await rowCounts();
  });

  const refusable = ALL_CASES.filter((item) => item.probe === 'nul' || (item.probe === 'loneSurrogate' && item.body !== undefined && !item.url.includes('%ED%A0%80')));
  test.each(refusable.map((item) => [item.name, item] as const))('%s', async (_name, item) => {
    const response = await send(item);
    expect([item.name, response.status]).toEqual([item.name, 400]);
    expect(response.body).toEqual({ code: expect.stringMatching(/^[A-Z_]+$/), message: expect.stringContaining(item.field), documentation: expect.stringContaining('/docs/errors#') });
    expect(response.body.message).toMatch(item.probe === 'nul' ? /NUL/ : /lone surrogate/);
  });

  test('no table gained or lost a row', async () => {
    expect(await rowCounts()).toEqual(before.counts);
  });
});

describe('an over-long value, or a lone surrogate in a URL, is never a 5xx', () => {
  const rest = ALL_CASES.filter((item) => item.probe === 'overLong' || (item.probe === 'loneSurrogate' && (item.body === undefined || item.url.includes('%ED%A0%80'))));
  test.each(rest.map((item) => [item.name, item] as const))('%s', async (_name, item) => {
    const response = await send(item);
    expect([item.name, response.status < 500]).toEqual([item.name, true]);
    // A length refusal names its limit, never only the type ("must be a string") or zod's own wording.
    if (response.status === 400) expect(response.body.message).not.toMatch(/must be a string$|Too big/);
  });
});
