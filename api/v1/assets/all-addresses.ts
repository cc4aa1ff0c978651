/** GET /v1/assets/all/addresses — every token's contract addresses per chain. */
import { listAddresses } from '../../../db/queries/assets';
import { respondCached } from '../respond';
import { addressEntryViews } from './views';
import { defineOperation } from '../../contract/operation';
import { addressEntrySchema } from './schemas';
import { z } from 'zod';

export const allAddressesOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/all/addresses',
  operationId: 'listContractAddresses',
  summary: "Every token's contract addresses",
  access: 'read',
  answers: { 200: { description: 'One entry per token with its contract on each chain, in symbol order.', schema: z.array(addressEntrySchema) } },
  errors: [],
  handler: (services) => async (ctx) => {
    await respondCached(ctx, services, { tag: 'catalogue', key: 'addresses:all', ttlMs: 60_000 }, async () =>
      addressEntryViews(await listAddresses(services.db)),
    );
  },
});
