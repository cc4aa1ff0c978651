/** The assets resource: prices, market data, candles, corporate actions and contract addresses. */
import type { Resource } from '../../contract/operation';
import { allAddressesOperation } from './all-addresses';
import { allMarketDataOperation } from './all-market';
import { allMetadataOperation } from './all-metadata';
import { assetAddressesOperation } from './asset-addresses';
import { assetPriceOperation } from './asset-price';
import { dividendsOperation } from './dividends';
import { enhancedPricesOperation } from './enhanced-prices';
import { latestPricesOperation } from './latest-prices';
import { marketDataOperation } from './market-data';
import { ohlcOperation } from './ohlc';
import { sharesMultiplierOperation } from './shares-multiplier';

/** In matching order: the `all` paths come before the `{symbol}` ones they would otherwise match. */
export const assetsResource: Resource = {
  tag: 'Assets',
  description: 'Prices, market data, candles, corporate actions, contract addresses and metadata of the tokens.',
  operations: [
    latestPricesOperation,
    enhancedPricesOperation,
    allAddressesOperation,
    allMarketDataOperation,
    allMetadataOperation,
    assetPriceOperation,
    ohlcOperation,
    marketDataOperation,
    sharesMultiplierOperation,
    dividendsOperation,
    assetAddressesOperation,
  ],
};
