/**
 * The partner (brokerage) in-kind flow: the routes the broker calls with its partner-scoped key, and the operators'
 * routes (admin) that onboard clients, enable wallets and follow every request.
 */
import Router from '@koa/router';
import { requirePartnerScope, requireScope } from '../../framework/auth';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { confirmIssuanceRoute } from './confirm-issuance';
import { connectAccountRoute } from './connect-account';
import { disableWalletRoute } from './disable-wallet';
import { enableWalletRoute } from './enable-wallet';
import { getClientRoute } from './get-client';
import { getRequestRoute } from './get-request';
import { issuanceRoute } from './issuance';
import { listRequestsRoute } from './list-requests';
import { putClientRoute } from './put-client';
import { resumeRequestRoute } from './resume-request';
import { tokenizedAssetsRoute } from './tokenized-assets';
import { unlinkClientRoute } from './unlink-client';

export function tokenizationRouter(services: ApiServices): Router<ApiState> {
  const partner = requirePartnerScope();
  const admin = requireScope('admin');
  return new Router<ApiState>({ prefix: '/tokenization' })
    .post('/accounts/connect', partner, connectAccountRoute(services))
    .get('/tokenized-assets', partner, tokenizedAssetsRoute(services))
    .post('/inkind/issuance', partner, issuanceRoute(services))
    .post('/inkind/issuance/confirm', partner, confirmIssuanceRoute(services))
    .put('/clients/:clientId', admin, putClientRoute(services))
    .get('/clients/:clientId', admin, getClientRoute(services))
    .delete('/clients/:clientId/link', admin, unlinkClientRoute(services))
    .post('/clients/:clientId/wallets', admin, enableWalletRoute(services))
    .delete('/clients/:clientId/wallets/:chainId/:address', admin, disableWalletRoute(services))
    .get('/requests', admin, listRequestsRoute(services))
    .get('/requests/:issuerRequestId', admin, getRequestRoute(services))
    .post('/requests/:issuerRequestId/resume', admin, resumeRequestRoute(services));
}
