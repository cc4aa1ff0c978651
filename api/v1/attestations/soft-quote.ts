/** POST /v1/attestations/soft (write) — a non-binding priced quote: no id, no signature, counts against nothing. */
import type { Middleware } from 'koa';
import { priceRequest } from '../../../attestations/price-request';
import { softQuoteRequest } from '../../../attestations/request-schema';
import { Rounding, toScaledInteger } from '../../../domain/money';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { readQuoteBody, refusalsAsApiErrors, requireAttestations } from './context';

const BARE_CHAIN_ID = { 'ethereum-1': '1', 'bsc-56': '56', 'solana-900': '900' } as const;

export function softQuoteRoute(services: ApiServices): Middleware<ApiState> {
  return async (ctx) => {
    const { settings } = requireAttestations(services);
    const request = await readQuoteBody(ctx, services, softQuoteRequest);
    const asset = await services.assets.resolve(request.symbol);
    const priced = await refusalsAsApiErrors(() =>
      priceRequest({ db: services.db, now: services.clock(), maxPriceAgeMs: settings.maxPriceAgeMs }, asset, request),
    );
    ctx.body = {
      chainId: BARE_CHAIN_ID[priced.chain],
      symbol: asset.symbol,
      ticker: asset.ticker,
      assetAddress: priced.assetAddress,
      side: priced.side === 'buy' ? '0' : '1',
      tokenAmount: toScaledInteger(priced.tokenAmount, 18, Rounding.DOWN).toString(),
      price: toScaledInteger(priced.price, 18, Rounding.DOWN).toString(),
    };
  };
}
