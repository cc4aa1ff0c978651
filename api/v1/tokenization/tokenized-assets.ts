/**
 * GET /v1/tokenization/tokenized-assets (partner) — the underlyings the partner flow offers and, for each, its
 * token and the networks the token is deployed on: `{tokens: [{underlying, token, networks}]}`.
 */
import { chainTokenAddresses } from '../../../db/queries/chain-deployments';
import { listPartnerUnderlyings } from '../../../db/queries/partner-limits';
import { PARTNER_NETWORKS, tokenSymbolOf, type PartnerNetwork } from '../../../domain/partner';
import { defineOperation } from '../../contract/operation';
import { tokenizedAssetsSchema, type TokenizedAssets } from './schemas';

export const tokenizedAssetsOperation = defineOperation({
  method: 'get',
  path: '/v1/tokenization/tokenized-assets',
  operationId: 'listTokenizedAssets',
  summary: 'The underlyings the partner flow offers',
  description: 'Each underlying with a session limit, its token, and the networks the token is deployed on; underlyings not deployed on any network are left out.',
  access: 'partner',
  answers: { 200: { description: 'The offered underlyings, in ticker order.', schema: tokenizedAssetsSchema } },
  errors: [],
  handler: (services) => async (ctx) => {
    const deployed = await Promise.all(
      Object.entries(PARTNER_NETWORKS).map(async ([network, chain]) => ({ network: network as PartnerNetwork, tokens: await chainTokenAddresses(services.db, chain) })),
    );
    const tokens = (await listPartnerUnderlyings(services.db))
      .map((underlying) => {
        const token = tokenSymbolOf(underlying);
        return { underlying, token, networks: deployed.filter((chain) => chain.tokens[token]).map((chain) => chain.network) };
      })
      .filter((asset) => asset.networks.length > 0);
    ctx.body = { tokens } satisfies TokenizedAssets;
  },
});
