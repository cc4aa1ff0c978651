/** POST /v1/attestations/soft (write) — a non-binding priced quote: no id, no signature, counts against nothing. */
import { priceRequest } from '../../../attestations/price-request';
import { SOFT_QUOTE_FIELD_CODES, softQuoteRequest } from '../../../attestations/request-schema';
import { bareChainId } from '../../../domain/chains';
import { Rounding, toScaledInteger } from '../../../domain/money';
import { defineOperation } from '../../contract/operation';
import { PRICING_REFUSALS, refusalsAsApiErrors, requireAttestations, requireOneAmount } from './context';
import { softQuoteSchema, type SoftQuote } from './schemas';

export const softQuoteOperation = defineOperation({
  method: 'post',
  path: '/v1/attestations/soft',
  operationId: 'createSoftQuote',
  summary: 'Get a soft quote',
  description:
    'The price an attestation for the same request would carry now, without signing anything: not eligible for on-chain submission and counted against no limit. Same request as an attestation, without `userAddress`; refused when its chain is paused, the asset cannot trade now or it has no current price. Without a wallet, a soft quote is not checked against the account\'s allow-list.',
  access: 'write',
  body: softQuoteRequest,
  fieldCodes: SOFT_QUOTE_FIELD_CODES,
  answers: { 200: { description: 'The priced quote.', schema: softQuoteSchema } },
  errors: ['ATTESTATIONS_UNAVAILABLE', 'INVALID_AMOUNT', 'MISSING_TOKEN_OR_NOTIONAL', 'ASSET_NOT_FOUND', ...PRICING_REFUSALS],
  handler: (services) => async (ctx, { body: request }) => {
    const { settings } = requireAttestations(services);
    requireOneAmount(request);
    const asset = await services.assets.resolve(request.symbol);
    const priced = await refusalsAsApiErrors(() =>
      priceRequest({ db: services.db, now: services.clock(), maxPriceAgeMs: settings.maxPriceAgeMs }, asset, request),
    );
    ctx.body = {
      chainId: bareChainId(priced.chain).toString(),
      symbol: asset.symbol,
      ticker: asset.ticker,
      assetAddress: priced.assetAddress,
      side: priced.side === 'buy' ? '0' : '1',
      tokenAmount: toScaledInteger(priced.tokenAmount, 18, Rounding.DOWN).toString(),
      price: toScaledInteger(priced.price, 18, Rounding.DOWN).toString(),
    } satisfies SoftQuote;
  },
});
