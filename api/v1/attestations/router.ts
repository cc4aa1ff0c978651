/** The attestations resource: signed attestations, soft quotes, and reading one's own attestations. */
import Router from '@koa/router';
import { requireScope } from '../../framework/auth';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { createAttestationRoute } from './create-attestation';
import { getAttestationRoute } from './get-attestation';
import { listAttestationsRoute } from './list-attestations';
import { softQuoteRoute } from './soft-quote';

export function attestationsRouter(services: ApiServices): Router<ApiState> {
  const write = requireScope('write');
  return new Router<ApiState>({ prefix: '/attestations' })
    .post('/', write, createAttestationRoute(services))
    .post('/soft', write, softQuoteRoute(services))
    .get('/', listAttestationsRoute(services))
    .get('/:attestationId', getAttestationRoute(services));
}
