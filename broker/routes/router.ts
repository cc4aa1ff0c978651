/**
 * The sandbox's /v1 routes: authorized participants mint, list and read their records, read their account and
 * store their issuer client id; the issuer calls back after minting and after a burn, and may read records.
 */
import Router from '@koa/router';
import { basicAuth, requireRole } from '../framework/basic-auth';
import type { BrokerState } from '../framework/state';
import type { BrokerServices } from '../services';
import { getAccountRoute } from './get-account';
import { getRequestRoute } from './get-request';
import { linkClientRoute } from './link-client';
import { listRequestsRoute } from './list-requests';
import { mintRoute } from './mint';
import { mintCallbackRoute } from './mint-callback';
import { redeemCallbackRoute } from './redeem-callback';

export function brokerRouter(services: BrokerServices): Router<BrokerState> {
  const participant = requireRole('participant');
  const issuer = requireRole('issuer');
  const either = requireRole('participant', 'issuer');
  return new Router<BrokerState>({ prefix: '/v1/accounts' })
    .use(basicAuth(services.db))
    .get('/:account_id', either, getAccountRoute(services))
    .put('/:account_id/tokenization/client', participant, linkClientRoute(services))
    .post('/:account_id/tokenization/mint', participant, mintRoute(services))
    .get('/:account_id/tokenization/requests', either, listRequestsRoute(services))
    .get('/:account_id/tokenization/requests/:tokenization_request_id', either, getRequestRoute(services))
    .post('/:account_id/tokenization/callback/mint', issuer, mintCallbackRoute(services))
    .post('/:account_id/tokenization/callback/redeem', issuer, redeemCallbackRoute(services));
}
