/**
 * DELETE /v1/tokenization/clients/{clientId}/wallets/{chainId}/{address} (admin) — disables the wallet for the partner
 * flow and removes it from the chain's identity registry: 202 while the registry is written.
 */
import { setWalletPartnerEnabled } from '../../../db/queries/wallets';
import { unregisterWallet } from '../../../wallets/registration';
import { ApiError } from '../../../domain/errors';
import { requireChain } from '../accounts/context';
import { walletView } from '../accounts/wallet-params';
import { CLIENT_WALLET_FIELD_CODES, clientWalletParams } from './fields';
import { defineOperation } from '../../contract/operation';
import { partnerWalletSchema, type PartnerWallet } from './schemas';

export const disableWalletOperation = defineOperation({
  method: 'delete',
  path: '/v1/tokenization/clients/{clientId}/wallets/{chainId}/{address}',
  operationId: 'disablePartnerWallet',
  summary: "Disable a client's wallet for the partner flow",
  description: "Marks the wallet disabled for the flow and removes it from the chain's identity registry.",
  access: 'admin',
  params: clientWalletParams,
  fieldCodes: CLIENT_WALLET_FIELD_CODES,
  answers: {
    200: { description: 'Disabled, and out of the registry.', schema: partnerWalletSchema },
    202: { description: 'Disabled; the removal from the registry is being written to the chain.', schema: partnerWalletSchema },
  },
  errors: ['WALLET_NOT_FOUND', 'TEMPORAL_UNAVAILABLE', 'CHAIN_UNAVAILABLE'],
  handler: (services) => async (ctx, { params: { clientId, chainId, address } }) => {
    const workflows = await requireChain(services, chainId);
    if (!(await setWalletPartnerEnabled(services.db, { chain: chainId, address, clientId, enabled: false }))) {
      throw new ApiError('WALLET_NOT_FOUND', `Client ${clientId} has no wallet ${address} on ${chainId}`);
    }
    const wallet = await unregisterWallet(services.db, workflows, { accountId: clientId, chain: chainId, address });
    if (!wallet) throw new ApiError('WALLET_NOT_FOUND', `Client ${clientId} has no wallet ${address} on ${chainId}`);
    ctx.status = wallet.state === 'unregistering' ? 202 : 200;
    ctx.body = { ...walletView(wallet), partnerEnabled: false } satisfies PartnerWallet;
  },
});
