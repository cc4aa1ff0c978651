/**
 * POST /v1/accounts/{accountId}/wallets (admin) — registers a wallet to the account in the identity registry of an
 * EVM chain. Answers at once with the registration's state: 202 `registering` while the workflow writes the
 * registry, 200 for the account's own wallet as it stands (a repeated request changes nothing), 409 when another
 * account holds the wallet.
 */
import { walletAllowed } from '../../../db/queries/allow-list';
import { registerWallet } from '../../../wallets/registration';
import { ApiError } from '../../../domain/errors';
import { defineOperation } from '../../contract/operation';
import { requireAccount, requireChain } from './context';
import { walletSchema } from './schemas';
import { accountParams, WALLET_FIELD_CODES, walletBody, walletView } from './wallet-params';

export const registerWalletOperation = defineOperation({
  method: 'post',
  path: '/v1/accounts/{accountId}/wallets',
  operationId: 'registerWallet',
  summary: 'Register a wallet to the account',
  description:
    "Registers the wallet to the account in the identity registry of an EVM chain, answering at once with the registration's state while a workflow writes the registry. Repeating the request for the account's own wallet changes nothing; a wallet another account holds is refused, and so is one off the account's allow-list while the account requires it (`INVALID_ADDRESS`).",
  access: 'admin',
  params: accountParams,
  body: walletBody,
  fieldCodes: WALLET_FIELD_CODES,
  answers: {
    200: { description: "The account's own wallet as it stands: the request changed nothing.", schema: walletSchema },
    202: { description: 'The registration is under way (`registering`).', schema: walletSchema },
  },
  errors: ['ACCOUNT_NOT_FOUND', 'INVALID_ADDRESS', 'TEMPORAL_UNAVAILABLE', 'CHAIN_UNAVAILABLE', 'WALLET_ALREADY_REGISTERED'],
  handler: (services) => async (ctx, { params: { accountId }, body }) => {
    await requireAccount(services, accountId);
    if (!(await walletAllowed(services.db, { accountId, chain: body.chainId, address: body.address }))) {
      throw new ApiError('INVALID_ADDRESS', `user_address is not on the allow list: ${body.address} is not allowed for account ${accountId} on ${body.chainId}`);
    }
    const workflows = await requireChain(services, body.chainId);
    const outcome = await registerWallet(services.db, workflows, { accountId, chain: body.chainId, address: body.address });
    if (outcome.outcome === 'taken') {
      throw new ApiError('WALLET_ALREADY_REGISTERED', `Wallet ${body.address} is registered to another account on ${body.chainId}`);
    }
    ctx.status = outcome.outcome === 'requested' ? 202 : 200;
    ctx.body = walletView(outcome.wallet);
  },
});
