/** GET /v1/attestations/{attestationId} — one of the calling account's attestations and its state. */
import { findAccountAttestation } from '../../../db/queries/attestations';
import { ApiError } from '../../../domain/errors';


import { attestationIdParams } from '../../framework/path-params';
import { defineOperation } from '../../contract/operation';
import { attestationRecordView } from './context';
import { attestationRecordSchema } from './schemas';

export const getAttestationOperation = defineOperation({
  method: 'get',
  path: '/v1/attestations/{attestationId}',
  operationId: 'getAttestation',
  summary: "One of the account's attestations",
  description:
    'The attestation as issued, with its state: past its expiration an outstanding attestation reads `expired` even before that is recorded; an execution seen on-chain but not final reads `executing`, with its transaction, block and confirmations.',
  access: 'read',
  params: attestationIdParams,
  answers: { 200: { description: 'The attestation and its state.', schema: attestationRecordSchema } },
  errors: ['ATTESTATION_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { attestationId } }) => {
    const accountId = ctx.state.apiKey?.accountId;
    const stored = accountId ? await findAccountAttestation(services.db, accountId, attestationId) : undefined;
    if (!stored) throw new ApiError('ATTESTATION_NOT_FOUND', `No attestation ${attestationId} for this account`);
    ctx.body = attestationRecordView(stored, services.clock());
  },
});
