/** GET /v1/reserves — the last proof of reserves: per asset, the tokens on chain, the shares held and in flight. */
import { latestReserveSnapshot } from '../../../db/queries/reserves';
import { defineOperation } from '../../contract/operation';
import { reservesSchema, type Reserves } from './schemas';

export const reservesOperation = defineOperation({
  method: 'get',
  path: '/v1/reserves',
  operationId: 'getReserves',
  summary: 'Proof of reserves',
  description:
    "The reserves workflow's last computation: for every asset, the token supply read on chain at each chain's last final block, the shares the issuer holds at the broker, what is in flight between them (hedges owed by final attestation trades, partner redemptions and mints under way), the coverage and whether the asset is `short`. Recomputed every RESERVES_INTERVAL_MS and after each hedge fill.",
  access: 'read',
  answers: { 200: { description: 'The last computation (timestamp null and no assets before the first).', schema: reservesSchema } },
  errors: [],
  handler: (services) => async (ctx) => {
    const latest = await latestReserveSnapshot(services.db);
    ctx.body = { timestamp: latest?.takenAt ?? null, assets: latest?.assets ?? [] } satisfies Reserves;
  },
});
