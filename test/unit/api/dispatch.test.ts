/**
 * The API's operation router on a bare Koa app: templates matched segment by segment in declaration order, literals
 * case-insensitively, parameters decoded, a trailing slash ignored, HEAD answered by GET, 405 with `Allow` (OPTIONS 200)
 * for a known path under another method, the operation's middleware run in order, anything else left to the next.
 */
import Koa from 'koa';
import request from 'supertest';
import { OperationRouter } from '../../../api/contract/dispatch';
import type { ApiState } from '../../../api/framework/state';
import { ApiError, errorBody } from '../../../domain/errors';

function app() {
  const router = new OperationRouter();
  const trail: string[] = [];
  const answer = (name: string): Koa.Middleware<ApiState> => (ctx) => {
    ctx.body = { name, params: ctx.params, operationId: ctx.state.operationId, trail };
  };
  const step = (name: string): Koa.Middleware<ApiState> => async (_ctx, next) => {
    trail.push(name);
    await next();
  };
  router.add('get', '/v1/assets/all/prices/latest', 'allLatest', [answer('all')]);
  router.add('get', '/v1/assets/{symbol}/prices/latest', 'latest', [step('auth'), step('limit'), answer('one')]);
  router.add('post', '/v1/attestations', 'createAttestation', [answer('create')]);
  router.add('get', '/v1/attestations/{attestationId}', 'getAttestation', [answer('get')]);
  const koa = new Koa<ApiState>();
  koa.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined) ctx.status = 404;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.body = errorBody('http://test', error.code, error.message);
    }
  });
  koa.use(router.middleware());
  return { http: request(koa.callback()), trail };
}

test('the first declared template that matches answers, with its parameters decoded and its id on the state', async () => {
  const { http, trail } = app();
  expect((await http.get('/v1/assets/all/prices/latest')).body).toMatchObject({ name: 'all', operationId: 'allLatest' });
  const one = await http.get('/v1/assets/AAPL%6Fn/prices/latest');
  expect(one.body).toMatchObject({ name: 'one', params: { symbol: 'AAPLon' }, operationId: 'latest' });
  expect(trail).toEqual(['auth', 'limit']);
});

test('literals match in any case, one trailing slash is ignored, HEAD is answered by GET', async () => {
  const { http } = app();
  expect((await http.get('/V1/Assets/SPYon/PRICES/latest/')).body).toMatchObject({ params: { symbol: 'SPYon' } });
  expect((await http.head('/v1/attestations/42')).status).toBe(200);
});

test('another method on a known path is 405 with Allow; OPTIONS is 200 with Allow; unknown methods are 405 everywhere', async () => {
  const { http } = app();
  const put = await http.put('/v1/attestations');
  expect([put.status, put.body.code, put.headers.allow]).toEqual([405, 'METHOD_NOT_ALLOWED', 'POST']);
  expect((await http.delete('/v1/attestations/42')).headers.allow).toBe('GET, HEAD');
  const options = await http.options('/v1/attestations/42');
  expect([options.status, options.headers.allow]).toEqual([200, 'GET, HEAD']);
  expect((await http.propfind('/v1/nothing')).status).toBe(405);
});

test('paths that no template has, and empty parameters, go on to the next middleware', async () => {
  const { http } = app();
  for (const path of ['/v1/nothing', '/v1/attestations/42/more', '/v1/assets//prices/latest', '/v1']) {
    expect((await http.get(path)).status).toBe(404);
  }
});
