/**
 * POST /v1/tokenization/clients/{clientId}/wallets (admin) `{chainId, address}` — enables the client's wallet for the
 * partner flow: registers it in the chain's identity registry under the client's userId (the issuer contract mints
 * only to registered wallets) and marks it enabled. 202 while the registration is written, 200 once registered;
 * 409 when another account holds the wallet.
 */
import { findPartnerClient } from '../../../db/queries/partner-clients';
import { setWalletPartnerEnabled } from '../../../db/queries/wallets';
import { findWallet } from '../../../db/queries/wallets';
import { registerWallet } from '../../../wallets/registration';
import { ApiError } from '../../../domain/errors';
import { requireChain } from '../accounts/context';
import { walletView } from '../accounts/wallet-params';
import { CLIENT_WALLET_FIELD_CODES, clientParams, clientWalletBody } from './fields';
import { defineOperation } from '../../contract/operation';
import { partnerWalletSchema, type PartnerWallet } from './schemas';

export const enableWalletOperation = defineOperation({
  method: 'post',
  path: '/v1/tokenization/clients/{clientId}/wallets',
  operationId: 'enablePartnerWallet',
  summary: "Enable a client's wallet for the partner flow",
  description:
    "Registers the wallet in the chain's identity registry under the client's user id (the issuer contract mints only to registered wallets) and marks it enabled for the flow. Issuances to it are refused with `WALLET_NOT_ENABLED` until the registration is complete. Enabling it again answers it as it stands.",
  access: 'admin',
  params: clientParams,
  body: clientWalletBody,
  fieldCodes: CLIENT_WALLET_FIELD_CODES,
  answers: {
    200: { description: 'Enabled and registered.', schema: partnerWalletSchema },
    202: { description: 'Enabled; the registration is being written to the chain.', schema: partnerWalletSchema },
  },
  errors: ['CLIENT_NOT_FOUND', 'WALLET_ALREADY_REGISTERED', 'TEMPORAL_UNAVAILABLE', 'CHAIN_UNAVAILABLE'],
  handler: (services) => async (ctx, { params: { clientId }, body }) => {
    if (!(await findPartnerClient(services.db, clientId))) throw new ApiError('CLIENT_NOT_FOUND', `No client ${clientId} is onboarded for the partner flow`);
    const workflows = await requireChain(services, body.chainId);
    const outcome = await registerWallet(services.db, workflows, { accountId: clientId, chain: body.chainId, address: body.address });
    if (outcome.outcome === 'taken') {
      throw new ApiError('WALLET_ALREADY_REGISTERED', `Wallet ${body.address} is registered to another account on ${body.chainId}`);
    }
    await setWalletPartnerEnabled(services.db, { chain: body.chainId, address: body.address, clientId, enabled: true });
    const wallet = (await findWallet(services.db, body.chainId, body.address))!;
    ctx.status = wallet.state === 'registered' ? 200 : 202;
    ctx.body = { ...walletView(wallet), partnerEnabled: true } satisfies PartnerWallet;
  },
});
