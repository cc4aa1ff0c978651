/**
 * GET /v1/tokenization/tokenized-assets (partner) — the underlyings the partner flow offers and, for each, its
 * token and the networks the token is deployed on: `{tokens: [{underlying, token, networks}]}`.
 */
import type { Middleware } from 'koa';
import { chainTokenAddresses } from '../../../db/queries/chains';
import { listPartnerUnderlyings } from '../../../db/queries/partner';
import { PARTNER_NETWORKS, tokenSymbolOf, type PartnerNetwork } from '../../../domain/partner';
import type { ApiServices } from '../../services';

export function tokenizedAssetsRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const deployed = await Promise.all(
      Object.entries(PARTNER_NETWORKS).map(async ([network, chain]) => ({ network: network as PartnerNetwork, tokens: await chainTokenAddresses(services.db, chain) })),
    );
    const tokens = (await listPartnerUnderlyings(services.db))
      .map((underlying) => {
        const token = tokenSymbolOf(underlying);
        return { underlying, token, networks: deployed.filter((chain) => chain.tokens[token]).map((chain) => chain.network) };
      })
      .filter((asset) => asset.networks.length > 0);
    ctx.body = { tokens };
  };
}
