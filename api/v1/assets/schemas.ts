/** The answers of the assets resource as zod schemas (named in the OpenAPI document); the routes' types come from them. */
import { z } from 'zod';
import { decimalString, epochMs } from '../../../domain/json-formats';
import { INTERVALS, RANGES } from '../../../domain/market/candles';
import { assetPriceSchema, candleSchema } from '../../../domain/market/views';
import { component } from '../../contract/components';

// The latest price and the candle are the live streams' shapes too (domain/market/views.ts); named here.
component('AssetPrice', assetPriceSchema);

export const enhancedPriceSchema = component(
  'EnhancedPrice',
  z.object({
    symbol: z.string(),
    price: decimalString,
    priceChange24h: decimalString.describe('Change over the last 24 h of open market (a plain 24 h for assets that trade off-hours).'),
    priceChangePct24h: decimalString.describe('The same change in percent.'),
    timestamp: epochMs,
  }),
);
export type EnhancedPrice = z.infer<typeof enhancedPriceSchema>;

const contractAddressSchema = z.object({
  networkChainId: z.string().describe('`<chain name>-<chain id>`, e.g. `ethereum-1`.'),
  address: z.string().describe('The token contract.'),
  decimals: z.int().nonnegative(),
});

export const addressEntrySchema = component('ContractAddresses', z.object({ symbol: z.string(), addresses: z.array(contractAddressSchema) }));
export type AddressEntry = z.infer<typeof addressEntrySchema>;

export const assetMetadataSchema = component(
  'AssetMetadata',
  z.object({
    symbol: z.string(),
    ticker: z.string().describe('The stock behind the token (for a portfolio token, its own ticker).'),
    coingeckoId: z.string().nullable().optional().describe("The token's CoinGecko id; null while it is not listed there."),
    coinmarketcapId: z.string().nullable().optional().describe("The token's CoinMarketCap id; null while it is not listed there."),
    addresses: z.array(contractAddressSchema).optional().describe('The token contract on each chain.'),
    tags: z.object({
      assetClass: z.string().describe('The high-level category: `equities` for every token here.'),
      instrumentType: z.string().describe('The kind of instrument: `stock`, `etf` or `portfolio`.'),
      sectorIndustry: z.array(z.string()).optional(),
      typeFactorRiskProfile: z.array(z.string()).optional(),
      regionMarketExposure: z.array(z.string()).optional(),
    }),
  }),
);
export type AssetMetadata = z.infer<typeof assetMetadataSchema>;

component('Candle', candleSchema);

export const ohlcSchema = component(
  'Ohlc',
  z.object({
    interval: z.enum(INTERVALS),
    range: z.enum(RANGES),
    primaryMarket: z.object({ symbol: z.string(), data: z.array(candleSchema) }),
    underlyingMarket: z.object({ ticker: z.string(), data: z.array(candleSchema) }),
  }),
);
export type Ohlc = z.infer<typeof ohlcSchema>;

const TRADABLE_SESSIONS = ['premarket', 'regular', 'postmarket', 'overnight'] as const;

export const marketDataSchema = component(
  'MarketData',
  z.object({
    primaryMarket: z.object({
      symbol: z.string(),
      price: decimalString,
      priceChange24h: decimalString,
      priceChangePct24h: decimalString,
      priceHistory24h: z.array(z.object({ timestamp: epochMs, price: decimalString })),
      totalHolders: z.int().nonnegative(),
      sharesMultiplier: decimalString,
      tradableSessions: z.array(z.enum(TRADABLE_SESSIONS)),
    }),
    underlyingMarket: z
      .object({
        ticker: z.string(),
        name: z.string(),
        price: decimalString,
        priceHigh52w: decimalString,
        priceLow52w: decimalString,
        volume: decimalString,
        averageVolume: decimalString,
        sharesOutstanding: decimalString,
        marketCap: decimalString,
      })
      .nullable()
      .describe('Null for portfolio tokens, which list `constituentTokens` instead.'),
    constituentTokens: z.array(z.string()),
    timestamp: epochMs.describe('Last update.'),
  }),
);
export type MarketData = z.infer<typeof marketDataSchema>;

export const sharesMultiplierSchema = component(
  'SharesMultiplierHistory',
  z.object({
    history: z.array(
      z.object({
        sharesMultiplier: decimalString.describe('The value after the change.'),
        changeTimestamp: epochMs.describe('When the value changed.'),
        reason: z.string().describe('The corporate action behind the change.'),
      }),
    ),
    timestamp: epochMs,
  }),
);
export type SharesMultiplierHistory = z.infer<typeof sharesMultiplierSchema>;

export const dividendsSchema = component(
  'DividendInfo',
  z.object({
    ticker: z.string(),
    dividendYield: decimalString.describe('Trailing-year dividends over the current price; `0.05` is 5%.'),
    payoutFrequency: z.enum(['monthly', 'quarterly', 'semi-annually', 'annually', 'irregular', 'none']),
    lastCashAmount: decimalString.describe('The last dividend per share.'),
    lastPaymentDate: z.iso.date().nullable().describe('`YYYY-MM-DD`; null when none was paid.'),
    timestamp: epochMs,
  }),
);
export type DividendInfo = z.infer<typeof dividendsSchema>;
