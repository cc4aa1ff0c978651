/**
 * The sandbox's /v1 routes: authorized participants connect their accounts to the issuer (or store the client id by
 * hand), mint, list and read their records and read their accounts; the issuer, under its own account, calls back
 * after minting and after a burn and reads every participant's records.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { requireRole } from '../framework/basic-auth';
import type { BrokerState } from '../framework/state';
import type { BrokerServices } from '../services';
import { connectRoute } from './connect';
import { getAccountRoute } from './get-account';
import { getRequestRoute } from './get-request';
import { linkClientRoute } from './link-client';
import { listRequestsRoute } from './list-requests';
import { mintRoute } from './mint';
import { mintCallbackRoute } from './mint-callback';
import { redeemCallbackRoute } from './redeem-callback';

export function brokerRouter(services: BrokerServices, authenticate: Middleware<BrokerState>): Router<BrokerState> {
  const participant = requireRole('participant');
  const issuer = requireRole('issuer');
  const either = requireRole('participant', 'issuer');
  return new Router<BrokerState>({ prefix: '/v1/accounts' })
    .use(authenticate)
    .get('/:account_id', either, getAccountRoute(services))
    .put('/:account_id/tokenization/client', participant, linkClientRoute(services))
    .post('/:account_id/tokenization/connect', participant, connectRoute(services))
    .post('/:account_id/tokenization/mint', participant, mintRoute(services))
    .get('/:account_id/tokenization/requests', either, listRequestsRoute(services))
    .get('/:account_id/tokenization/requests/:tokenization_request_id', either, getRequestRoute(services))
    .post('/:account_id/tokenization/callback/mint', issuer, mintCallbackRoute(services))
    .post('/:account_id/tokenization/callback/redeem', issuer, redeemCallbackRoute(services));
}
