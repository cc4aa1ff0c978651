/**
 * Every declared path and query parameter — of every /v1 operation (read from the OpenAPI document) and of every
 * console route (read from console/routes.ts), the console signed in as an operator — sent control characters, a
 * value one character past its declared length (or far past, where it declares none) and, where it is a number or a
 * time, values out of its range: a control character or an over-long value is a 400 naming the parameter (the
 * documented error shape on the API, an error page on the console), an out-of-range value a 4xx, never a 5xx. Then
 * the exact requests issue 33 found answered 500: times past PostgreSQL's bigint or a JS Date, a NUL in the console's
 * ids, cursors and filters, and console actions named after properties every object has.
 */
import request from 'supertest';
import type { Test } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { z } from 'zod';
import { FailedAuthentications, failedAuthPolicy } from '../../access/failed-auth';
import type { Access } from '../../api/contract/operation';
import { API_RESOURCES, openApiDocument } from '../../api/resources';
import { consoleRouter } from '../../console/router';
import { CONSOLE_ROUTES, type ConsoleRoute } from '../../console/routes';
import { TEST_BASE_URL, type TestApi } from '../support/api';
import { VALID_PARAMETERS } from '../support/valid-parameters';
import { startWalkApi, type WalkApi } from '../support/walk-api';

type JsonSchema = Record<string, unknown> & { type?: string | string[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; allOf?: JsonSchema[]; items?: JsonSchema };
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: JsonSchema;
}

/** A console route's path parameters kept valid while another parameter is probed. */
const VALID_CONSOLE_PARAMETERS: Record<string, string> = { workflowId: 'market-data-retention', id: '1', action: 'market-resume' };

/** Control characters, percent-encoded: C0 (SOH, ESC), DEL and C1 (NEL). */
const CONTROL_CHARACTERS = ['%01', '%1B', '%7F', '%C2%85'];

type ProbeKind = 'control' | 'overLong' | 'outOfRange';
interface Probe {
  kind: ProbeKind;
  /** Percent-encoded as it goes in the URL. */
  value: string;
}

/** The schema and every schema it is made of (unions, intersections, array items). */
function variants(schema: JsonSchema): JsonSchema[] {
  return [schema, ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? []), ...(schema.items ? [schema.items] : [])].flatMap(variants)];
}

/** The values that must be refused, derived from the parameter's declared schema and a valid value of it. */
function probes(schema: JsonSchema, valid: string | undefined): Probe[] {
  const all = variants(schema);
  const numeric = all.some((variant) => variant.type === 'integer' || variant.type === 'number');
  /** The most digits a `^\d{1,n}$` pattern takes. */
  const digits = all.flatMap((variant) => (typeof variant.pattern === 'string' ? [/^\^\\d\{1,(\d+)\}\$$/.exec(variant.pattern)?.[1]] : [])).filter(Boolean).map(Number);
  const base = valid ?? (numeric || digits.length > 0 ? '1' : 'x');
  const list: Probe[] = CONTROL_CHARACTERS.map((character) => ({ kind: 'control', value: `${encodeURIComponent(base.slice(0, 1))}${character}${encodeURIComponent(base.slice(1))}` }));
  const maxLength = Math.max(-1, ...all.map((variant) => (typeof variant.maxLength === 'number' ? variant.maxLength : -1)));
  const length = (maxLength >= 0 ? maxLength : 4_000) + 1;
  list.push({ kind: 'overLong', value: encodeURIComponent(`${base.slice(0, 1).repeat(Math.max(0, length - base.length))}${base}`) });
  for (const variant of all) {
    if (typeof variant.maximum === 'number') list.push({ kind: 'outOfRange', value: String(variant.maximum + 1) });
    if (typeof variant.minimum === 'number') list.push({ kind: 'outOfRange', value: String(variant.minimum - 1) });
  }
  if (numeric) for (const value of ['99999999999999999999', '1e400', 'NaN']) list.push({ kind: 'outOfRange', value });
  for (const most of digits) list.push({ kind: 'outOfRange', value: '9'.repeat(most + 1) }, { kind: 'outOfRange', value: '-1' });
  return list;
}

interface Case {
  name: string;
  method: string;
  url: string;
  parameter: string;
  probe: Probe;
  access?: Access;
}

/** Fills `template` ({name} or :name parameters) with valid values, `probed` with `value`. */
function fill(template: string, pattern: RegExp, valid: Record<string, string>, probed: { in: string; name: string } | undefined, value: string): string {
  return template.replace(pattern, (_, name: string) => (probed?.in === 'path' && probed.name === name ? value : encodeURIComponent(valid[name] ?? 'x')));
}

function apiCases(): Case[] {
  const document = openApiDocument(TEST_BASE_URL);
  const accessOf = new Map(API_RESOURCES.flatMap((resource) => resource.operations.map((operation) => [operation.operationId, operation.access] as const)));
  const list: Case[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const parameters = ((operation.parameters ?? []) as Parameter[]).filter((parameter) => parameter.in !== 'header');
      for (const parameter of parameters) {
        for (const probe of probes(parameter.schema, VALID_PARAMETERS[parameter.name])) {
          let url = fill(path, /\{(\w+)\}/g, VALID_PARAMETERS, parameter, probe.value);
          const query = parameters
            .filter((other) => other.in === 'query')
            .flatMap((other) => (other === parameter ? [`${other.name}=${probe.value}`] : VALID_PARAMETERS[other.name] ? [`${other.name}=${encodeURIComponent(VALID_PARAMETERS[other.name]!)}`] : []));
          if (query.length > 0) url += `?${query.join('&')}`;
          const operationId = operation.operationId as string;
          list.push({ name: `${method.toUpperCase()} ${path} ${parameter.in} ${parameter.name}: ${probe.kind} ${probe.value.slice(0, 24)}`, method, url, parameter: parameter.name, probe, access: accessOf.get(operationId) });
        }
      }
    }
  }
  return list;
}

/** A console field's schema as declared: through the "empty is absent" step every filter takes. */
function declaredSchema(field: z.ZodType): JsonSchema {
  let schema: z.ZodType = field;
  while (schema instanceof z.ZodPipe && schema.in instanceof z.ZodTransform) schema = schema.out as z.ZodType;
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

function consoleCases(): Case[] {
  const list: Case[] = [];
  for (const [key, route] of Object.entries(CONSOLE_ROUTES) as [string, ConsoleRoute][]) {
    const [method, path] = key.split(' ') as [string, string];
    for (const [location, object] of [
      ['path', route.params],
      ['query', route.query],
    ] as const) {
      for (const [name, field] of Object.entries(object.shape)) {
        for (const probe of probes(declaredSchema(field as z.ZodType), VALID_CONSOLE_PARAMETERS[name])) {
          const probed = { in: location, name };
          let url = `/console${fill(path, /:(\w+)/g, VALID_CONSOLE_PARAMETERS, probed, probe.value)}`;
          if (location === 'query') url += `?${name}=${probe.value}`;
          list.push({ name: `${key} ${location} ${name}: ${probe.kind} ${probe.value.slice(0, 24)}`, method: method.toLowerCase(), url, parameter: name, probe });
        }
      }
    }
  }
  return list;
}

const API_CASES = apiCases();
const CONSOLE_CASES = consoleCases();

let walk: WalkApi;
let api: TestApi;
let keyOf: WalkApi['keyOf'];
let operator: TestAgent;
let csrf: string;

beforeAll(async () => {
  walk = await startWalkApi('parameter-bounds');
  ({ api, keyOf } = walk);
  operator = request.agent(api.app.koa.callback());
  const signedIn = await operator.post('/console/sign-in').type('form').send({ key: api.keys.admin });
  expect(signedIn.status).toBe(303);
  const controls = await operator.get('/console/controls');
  csrf = /name="csrf" value="([^"]+)"/.exec(controls.text)![1]!;
}, 60_000);

afterAll(() => walk?.close());

async function sendApi(item: Case): Promise<{ status: number; body: Record<string, unknown> }> {
  let call = (api.http as unknown as Record<string, (url: string) => Test>)[item.method]!(item.url).timeout({ response: 10_000 });
  const key = item.access && keyOf[item.access];
  if (key) call = call.set('x-api-key', key);
  const response = await call;
  return { status: response.status, body: response.body as Record<string, unknown> };
}

async function sendConsole(item: Case): Promise<{ status: number; text: string }> {
  let call = (operator as unknown as Record<string, (url: string) => Test>)[item.method]!(item.url).timeout({ response: 10_000 });
  if (item.method === 'post') call = call.type('form').send({ csrf });
  const response = await call;
  return { status: response.status, text: response.text };
}

const DOCUMENTED = { code: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String), documentation: expect.stringContaining('/docs/errors#') };

test('the walks cover every kind of parameter, and every console route is declared', () => {
  const names = [...API_CASES, ...CONSOLE_CASES].map((item) => item.name);
  for (const expected of [
    'GET /v1/attestations query createdAfter: outOfRange 9999999999999999',
    'GET /v1/workflows query startedBefore: outOfRange 9999999999999999',
    'GET /v1/attestations query limit: outOfRange 101',
    'GET /v1/assets/{symbol}/prices/latest path symbol: control A%01APLon',
    'GET /v1/workflows/{workflowId} path workflowId: overLong',
    'GET /partner-requests query cursor: control x%01',
    'POST /actions/:action path action: control m%01arket-resume',
    'GET /redemptions query page: outOfRange 1000001',
    'GET /audit query before: outOfRange 9999999999999999999',
  ]) {
    expect(names.some((name) => name.startsWith(expected))).toBe(true);
  }
  const router = consoleRouter(api.app.services, { failures: new FailedAuthentications(failedAuthPolicy(60)), sessionTtlMs: 60_000 });
  const mounted = router.stack.flatMap((layer) => layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${String(layer.path).replace(/^\/console/, '') || '/'}`));
  expect(mounted.sort()).toEqual(Object.keys(CONSOLE_ROUTES).sort());
});

describe('every API parameter: a control character or an over-long value is a 400 naming it, an out-of-range value a 4xx', () => {
  test.each(API_CASES.map((item) => [item.name, item] as const))('%s', async (_name, item) => {
    const response = await sendApi(item);
    if (item.probe.kind === 'outOfRange') {
      expect([item.name, response.status >= 400 && response.status < 500]).toEqual([item.name, true]);
    } else {
      expect([item.name, response.status]).toEqual([item.name, 400]);
      // Named in the message, or by the code the operation gives the parameter (INVALID_SYMBOL, INVALID_GM_CHAIN, …).
      if (response.body.code === 'INVALID_PARAMETER') expect(response.body.message).toContain(item.parameter);
    }
    expect(response.body).toEqual(DOCUMENTED);
  });
});

describe('every console parameter, signed in: a control character or an over-long value is a 400 page naming it, an out-of-range value a 4xx', () => {
  test.each(CONSOLE_CASES.map((item) => [item.name, item] as const))('%s', async (_name, item) => {
    const response = await sendConsole(item);
    if (item.probe.kind === 'outOfRange') {
      expect([item.name, response.status >= 400 && response.status < 500]).toEqual([item.name, true]);
    } else {
      expect([item.name, response.status]).toEqual([item.name, 400]);
      expect(response.text).toContain(`INVALID_PARAMETER: Invalid ${item.url.includes('?') ? 'query' : 'path'} parameter ${item.parameter}`);
    }
  });
});

describe('the requests issue 33 found answered 500', () => {
  test.each([
    ['/v1/attestations?createdAfter=99999999999999999999', 'write', 'createdAfter'],
    ['/v1/attestations?createdBefore=99999999999999999999', 'write', 'createdBefore'],
    ['/v1/workflows?startedAfter=9007199254740993', 'admin', 'startedAfter'],
    ['/v1/workflows?startedBefore=9007199254740993', 'admin', 'startedBefore'],
    // Fifteen digits, but past the year 9999.
    ['/v1/reserves/history?underlying=AAPL&from=999999999999999', 'read', 'from'],
    ['/v1/attestations?createdAfter=0000-01-01T00:00:00%2B01:00', 'write', 'createdAfter'],
  ] as const)('GET %s is a 400 INVALID_PARAMETER', async (url, scope, parameter) => {
    const response = await api.http.get(url).set('x-api-key', api.keys[scope]);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      code: 'INVALID_PARAMETER',
      message: expect.stringContaining(`Invalid query parameter ${parameter}: must be epoch ms`),
      documentation: `${TEST_BASE_URL}/docs/errors#invalid_parameter`,
    });
  });

  test.each([
    ['/v1/attestations?createdAfter=0&createdBefore=253402300799999', 'write'],
    ['/v1/attestations?createdAfter=9999-12-31T23:59:59.999Z', 'write'],
    ['/v1/workflows?startedAfter=0&startedBefore=253402300799999', 'admin'],
    ['/v1/workflows?startedAfter=9999-12-31T23:59:59.999Z', 'admin'],
    ['/v1/reserves/history?underlying=AAPL&from=0&to=253402300799999', 'read'],
  ] as const)('GET %s, the bounds themselves, is answered', async (url, scope) => {
    const response = await api.http.get(url).set('x-api-key', api.keys[scope]);
    expect(response.status).toBe(200);
  });

  test.each(['/console/workflows?after=253402300799999', '/console/workflows?after=9999-12-31T23:59:59.999Z&status=RUNNING', '/console/audit?before=999999999999999999', '/console/redemptions?page=1000000'])(
    'GET %s, the bounds themselves, is a page',
    async (url) => {
      const response = await operator.get(url);
      expect(response.status).toBe(200);
    },
  );

  test.each(['/console/partner-requests/%00', '/console/find?id=%00', '/console/partner-requests?cursor=%00', '/console/chains?tx=%00', '/console/audit?target=%00'])(
    'GET %s is a 400 page',
    async (url) => {
      const response = await operator.get(url);
      expect(response.status).toBe(400);
      expect(response.text).toContain('INVALID_PARAMETER');
      expect(response.text).toContain('NUL');
    },
  );

  test.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])('POST /console/actions/%s with the session’s token is a 400 page, and does nothing', async (name) => {
    const before = (await api.db.query<{ paused: boolean }>('SELECT paused FROM market_state')).rows[0]!.paused;
    const response = await operator.post(`/console/actions/${name}`).type('form').send({ csrf, reason: 'probe', workflowId: 'market-data-retention' });
    expect(response.status).toBe(400);
    expect(response.text).toContain('INVALID_PARAMETER: Invalid path parameter action');
    expect((await api.db.query<{ paused: boolean }>('SELECT paused FROM market_state')).rows[0]!.paused).toBe(before);
  });

  test.each([
    ['workflow-cancel', { workflowId: '\u0000' }],
    ['watcher-resume', { workflowId: 'chain-watcher-\u0000' }],
    ['market-pause', { reason: 'drill\u0000' }],
    ['event-delete', { eventId: 'evt\u0000' }],
  ])('POST /console/actions/%s with a NUL in a form field is a 400 page, and nothing is audited', async (name, fields) => {
    const audited = async () => (await api.db.query<{ n: number }>('SELECT count(*)::int AS n FROM console_audit')).rows[0]!.n;
    const before = await audited();
    const response = await operator.post(`/console/actions/${name}`).type('form').send({ csrf, ...fields });
    expect(response.status).toBe(400);
    expect(response.text).toContain('INVALID_REQUEST_BODY: Invalid form field');
    expect(await audited()).toBe(before);
    expect((await api.db.query<{ paused: boolean }>('SELECT paused FROM market_state')).rows[0]!.paused).toBe(false);
  });

  test('a console action still runs: the walk was refused by its schemas, not by a broken session', async () => {
    const response = await operator.post('/console/actions/market-resume').type('form').send({ csrf });
    expect(response.status).toBe(303);
    expect(response.headers.location).toMatch(/^\/console\/controls\?notice=\d+$/);
    const page = await operator.get(response.headers.location!);
    expect([page.status, page.text]).toEqual([200, expect.stringContaining('notice-done')]);
  });
});
