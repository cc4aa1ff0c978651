/** The attestations resource: signed attestations, soft quotes, and reading one's own attestations. */
import type { Resource } from '../../contract/operation';
import { createAttestationOperation } from './create-attestation';
import { getAttestationOperation } from './get-attestation';
import { listAttestationsOperation } from './list-attestations';
import { signersOperation } from './signers';
import { softQuoteOperation } from './soft-quote';

export const attestationsResource: Resource = {
  tag: 'Attestations',
  description: "Signed mint and redeem attestations, non-binding soft quotes, the calling account's attestations with their state, and who signs them.",
  operations: [createAttestationOperation, softQuoteOperation, listAttestationsOperation, signersOperation, getAttestationOperation],
};
