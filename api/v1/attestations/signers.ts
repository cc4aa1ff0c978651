/**
 * GET /v1/attestations/signers — the public side of the attestation signers: the EIP-712 signer address and domain
 * of each EVM chain whose token manager is deployed, the Solana ed25519 public key with what it signs and the
 * issuer's stablecoin mint and treasury an attestation's transaction pays into or from.
 * Everything a third party needs to verify an attestation (`npm run verify`), nothing secret.
 */
import { settlementTokenReader } from '../../../chains/settlement-tokens';
import { listChainDeployments } from '../../../db/queries/chain-deployments';
import { isEvmChain } from '../../../domain/chains';
import { signerPublicInfo } from '../../../signing';
import { defineOperation } from '../../contract/operation';
import { requireAttestations } from './context';
import { signersSchema } from './schemas';

export const signersOperation = defineOperation({
  method: 'get',
  path: '/v1/attestations/signers',
  operationId: 'getAttestationSigners',
  summary: 'Who signs attestations',
  description:
    'The EVM signer address with the EIP-712 domain of each chain whose token manager is deployed (its `verifyingContract`) and the settlement token (stablecoin) with its decimals of each chain this API reaches, and the Solana ed25519 public key with what it signs (the message of the transaction in `additionalData`) and the stablecoin mint, its decimals and the treasury that transaction is checked against: what verifying an attestation takes.',
  access: 'read',
  answers: { 200: { description: 'The public signer information.', schema: signersSchema } },
  errors: ['ATTESTATIONS_UNAVAILABLE'],
  handler: (services) => {
    const settlementTokens = settlementTokenReader(services.chains);
    return async (ctx) => {
      const { signers, solana } = requireAttestations(services);
      const deployments = await listChainDeployments(services.db);
      const tokenManagers = Object.fromEntries(deployments.filter((deployment) => isEvmChain(deployment.chain)).map((deployment) => [deployment.chain, deployment.tokenManager]));
      ctx.body = signerPublicInfo(signers, tokenManagers, solana, await settlementTokens(deployments));
    };
  },
});
