/** GET /v1/accounts/{accountId}/allow-list (admin) — whether the account trades only through listed wallets, and the wallets listed per chain. */
import { getAllowList } from '../../../db/queries/allow-list';
import { ApiError } from '../../../domain/errors';
import type { ApiServices } from '../../services';
import { defineOperation } from '../../contract/operation';
import { allowListView } from './allow-list-params';
import { allowListSchema, type AllowList } from './schemas';
import { accountParams } from './wallet-params';

/** The account's allow-list as it stands, or 404 ACCOUNT_NOT_FOUND. */
export async function allowListOf(services: ApiServices, accountId: string): Promise<AllowList> {
  const list = await getAllowList(services.db, accountId);
  if (!list) throw new ApiError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
  return allowListView(list);
}

export const getAllowListOperation = defineOperation({
  method: 'get',
  path: '/v1/accounts/{accountId}/allow-list',
  operationId: 'getAllowList',
  summary: "The account's wallet allow-list",
  description:
    'Whether the account trades only through wallets an operator listed for it (`required`, false by default), and the wallets listed on each chain. While required, an attestation a wallet off the list could use is refused with 403 `INVALID_ADDRESS`.',
  access: 'admin',
  params: accountParams,
  answers: { 200: { description: 'The allow-list.', schema: allowListSchema } },
  errors: ['ACCOUNT_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { accountId } }) => {
    ctx.body = await allowListOf(services, accountId);
  },
});
