/**
 * Shapes of the token catalogue: what the platform knows about each tokenized asset.
 */
import type { SolanaChain } from '../chains';

/** Sessions in which an asset's underlying can trade (`offhours` is never one: see `tradableOffhours`). */
export type TradingSession = 'premarket' | 'regular' | 'postmarket' | 'overnight';

export interface Dividend {
  /** First New York trading date on which the stock trades without the dividend, `YYYY-MM-DD`. */
  exDate: string;
  paymentDate: string;
  /** Cash per underlying share, decimal string. */
  cashAmount: string;
}

export interface Split {
  /** Effective New York date (`YYYY-MM-DD`); the split applies from that day's 09:30 open. */
  date: string;
  /** New shares per old share, decimal string: '10' for a 10-for-1 forward split, '0.1' for 1-for-10. */
  ratio: string;
}

export interface Constituent {
  /** Catalogue symbol of the constituent token. */
  symbol: string;
  /** Constituent tokens held per portfolio token, decimal string. */
  units: string;
}

export interface AssetDefinition {
  /** On-chain token symbol, the underlying ticker followed by `on`. */
  symbol: string;
  /** Ticker of the underlying (for a portfolio, the portfolio's own ticker). */
  ticker: string;
  name: string;
  kind: 'stock' | 'etf' | 'portfolio';
  /** Sessions in which the token and its underlying trade; `overnight` only where the underlying trades 20:00–04:00. */
  tradableSessions: readonly TradingSession[];
  /** The token keeps trading on-chain (24/7) while its underlying market is closed. */
  tradableOffhours: boolean;
  /** New York date the token launched; its price history starts at that day's midnight. */
  listedAt: string;
  /**
   * Price level of the simulated underlying, in shares as they were at listing (before any split in
   * `splits`). Portfolio prices derive from their constituents; for them this is only the indicative
   * launch level.
   */
  basePrice: string;
  /** Annualised volatility of the simulated underlying's log price, e.g. '0.3'. */
  annualVolatility: string;
  /** Shares (or fund units) of the underlying outstanding today; for a portfolio, tokens in circulation. */
  sharesOutstanding: string;
  /** Wallets holding the token. */
  holders: number;
  /** Underlying shares traded per day, in shares as they were at listing; scales the simulated volume. */
  averageDailyVolume: string;
  /** Underlying cash dividends, ascending by exDate; may start before listing (only later ones are reinvested). */
  dividends: readonly Dividend[];
  /** Underlying splits, ascending by date. */
  splits: readonly Split[];
  /** Tokens a portfolio token holds; empty for single assets. */
  constituents: readonly Constituent[];
  /** Addresses known without a deployment (EVM token addresses come from the chains' deployments). */
  addresses: Record<SolanaChain, string>;
}
