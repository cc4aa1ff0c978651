/**
 * The token catalogue as data: every tokenized asset the platform issues, with the facts the API
 * reports (ticker, name, holders, shares outstanding, dividends, splits, sessions) and the parameters
 * of its simulated underlying. Addresses are derived in `index.ts`.
 */
import { regularDividends } from './dividend-schedule';
import { type AssetDefinition, type TradingSession } from './types';

export type AssetData = Omit<AssetDefinition, 'addresses'>;

/** Dividend calendars are declared up to here (at least the end of 2026). */
const SCHEDULE_END = '2027-06-30';

const WITH_OVERNIGHT: readonly TradingSession[] = ['premarket', 'regular', 'postmarket', 'overnight'];
const EXTENDED_HOURS: readonly TradingSession[] = ['premarket', 'regular', 'postmarket'];

/** Date most tokens launched on. */
const LAUNCH = '2025-09-03';

export const ASSET_DATA: readonly AssetData[] = [
  {
    symbol: 'AAPLon', ticker: 'AAPL', name: 'Apple Inc.', kind: 'stock',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '238.47', annualVolatility: '0.28',
    sharesOutstanding: '14840000000', holders: 18432, averageDailyVolume: '52000000',
    dividends: regularDividends({ firstExDate: '2024-02-09', everyMonths: 3, until: SCHEDULE_END, paymentLagDays: 6, amountByYear: { 2024: '0.25', 2025: '0.26', 2026: '0.27' } }),
    splits: [], constituents: [],
  },
  {
    symbol: 'NVDAon', ticker: 'NVDA', name: 'NVIDIA Corporation', kind: 'stock',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '171.66', annualVolatility: '0.5',
    sharesOutstanding: '24300000000', holders: 25117, averageDailyVolume: '180000000',
    dividends: regularDividends({ firstExDate: '2024-03-05', everyMonths: 3, until: SCHEDULE_END, paymentLagDays: 22, amountByYear: { 2024: '0.01' } }),
    splits: [], constituents: [],
  },
  {
    symbol: 'TSLAon', ticker: 'TSLA', name: 'Tesla, Inc.', kind: 'stock',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '334.09', annualVolatility: '0.6',
    sharesOutstanding: '3220000000', holders: 30961, averageDailyVolume: '95000000',
    dividends: [], splits: [], constituents: [],
  },
  {
    symbol: 'MSFTon', ticker: 'MSFT', name: 'Microsoft Corporation', kind: 'stock',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '505.35', annualVolatility: '0.25',
    sharesOutstanding: '7430000000', holders: 12208, averageDailyVolume: '20000000',
    dividends: regularDividends({ firstExDate: '2024-02-14', everyMonths: 3, until: SCHEDULE_END, paymentLagDays: 28, amountByYear: { 2024: '0.75', 2025: '0.83', 2026: '0.91' } }),
    splits: [], constituents: [],
  },
  {
    symbol: 'AMZNon', ticker: 'AMZN', name: 'Amazon.com, Inc.', kind: 'stock',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '225.99', annualVolatility: '0.32',
    sharesOutstanding: '10690000000', holders: 14876, averageDailyVolume: '42000000',
    dividends: [], splits: [], constituents: [],
  },
  {
    symbol: 'GOOGLon', ticker: 'GOOGL', name: 'Alphabet Inc. Class A', kind: 'stock',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '230.66', annualVolatility: '0.3',
    sharesOutstanding: '5820000000', holders: 11540, averageDailyVolume: '32000000',
    dividends: regularDividends({ firstExDate: '2024-06-10', everyMonths: 3, until: SCHEDULE_END, paymentLagDays: 6, amountByYear: { 2024: '0.2', 2025: '0.21', 2026: '0.22' } }),
    splits: [], constituents: [],
  },
  {
    symbol: 'METAon', ticker: 'META', name: 'Meta Platforms, Inc. Class A', kind: 'stock',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '737.05', annualVolatility: '0.38',
    sharesOutstanding: '2510000000', holders: 9873, averageDailyVolume: '12000000',
    dividends: regularDividends({ firstExDate: '2024-02-22', everyMonths: 3, until: SCHEDULE_END, paymentLagDays: 4, amountByYear: { 2024: '0.5', 2025: '0.525', 2026: '0.55' } }),
    splits: [], constituents: [],
  },
  {
    // Netflix split 10-for-1, trading split-adjusted from 2025-11-17; basePrice is pre-split.
    symbol: 'NFLXon', ticker: 'NFLX', name: 'Netflix, Inc.', kind: 'stock',
    tradableSessions: EXTENDED_HOURS, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '1236.4', annualVolatility: '0.35',
    sharesOutstanding: '4240000000', holders: 6421, averageDailyVolume: '3500000',
    dividends: [], splits: [{ date: '2025-11-17', ratio: '10' }], constituents: [],
  },
  {
    symbol: 'KOon', ticker: 'KO', name: 'The Coca-Cola Company', kind: 'stock',
    tradableSessions: EXTENDED_HOURS, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '68.93', annualVolatility: '0.15',
    sharesOutstanding: '4300000000', holders: 5312, averageDailyVolume: '14000000',
    dividends: regularDividends({ firstExDate: '2024-03-14', everyMonths: 3, until: SCHEDULE_END, paymentLagDays: 18, amountByYear: { 2024: '0.485', 2025: '0.51', 2026: '0.53' } }),
    splits: [], constituents: [],
  },
  {
    // Interim dividend in August, final in March: semi-annual on average.
    symbol: 'NVOon', ticker: 'NVO', name: 'Novo Nordisk A/S (ADR)', kind: 'stock',
    tradableSessions: EXTENDED_HOURS, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '55.12', annualVolatility: '0.4',
    sharesOutstanding: '4440000000', holders: 3087, averageDailyVolume: '8000000',
    dividends: [
      { exDate: '2024-03-22', paymentDate: '2024-04-03', cashAmount: '0.6512' },
      { exDate: '2024-08-16', paymentDate: '2024-08-28', cashAmount: '0.3985' },
      { exDate: '2025-03-28', paymentDate: '2025-04-09', cashAmount: '0.8164' },
      { exDate: '2025-08-15', paymentDate: '2025-08-27', cashAmount: '0.5112' },
      { exDate: '2026-03-27', paymentDate: '2026-04-08', cashAmount: '0.8401' },
      { exDate: '2026-08-14', paymentDate: '2026-08-26', cashAmount: '0.5208' },
      { exDate: '2027-03-25', paymentDate: '2027-04-06', cashAmount: '0.8650' },
    ],
    splits: [], constituents: [],
  },
  {
    symbol: 'BABAon', ticker: 'BABA', name: 'Alibaba Group Holding Limited (ADR)', kind: 'stock',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: false, listedAt: '2025-10-01',
    basePrice: '178.2', annualVolatility: '0.45',
    sharesOutstanding: '2300000000', holders: 4105, averageDailyVolume: '15000000',
    dividends: [
      { exDate: '2024-06-13', paymentDate: '2024-07-11', cashAmount: '1.66' },
      { exDate: '2025-06-12', paymentDate: '2025-07-10', cashAmount: '1.95' },
      { exDate: '2026-06-11', paymentDate: '2026-07-09', cashAmount: '2.05' },
      { exDate: '2027-06-10', paymentDate: '2027-07-08', cashAmount: '2.1' },
    ],
    splits: [], constituents: [],
  },
  {
    // Ordinary distributions plus interest on capital at uneven intervals: irregular.
    symbol: 'VALEon', ticker: 'VALE', name: 'Vale S.A. (ADR)', kind: 'stock',
    tradableSessions: EXTENDED_HOURS, tradableOffhours: false, listedAt: '2025-10-01',
    basePrice: '10.82', annualVolatility: '0.35',
    sharesOutstanding: '4270000000', holders: 2210, averageDailyVolume: '30000000',
    dividends: [
      { exDate: '2024-03-12', paymentDate: '2024-03-26', cashAmount: '0.4262' },
      { exDate: '2024-08-12', paymentDate: '2024-09-05', cashAmount: '0.3396' },
      { exDate: '2024-12-03', paymentDate: '2024-12-13', cashAmount: '0.0802' },
      { exDate: '2025-03-12', paymentDate: '2025-03-20', cashAmount: '0.3966' },
      { exDate: '2025-08-12', paymentDate: '2025-09-04', cashAmount: '0.3508' },
      { exDate: '2025-12-11', paymentDate: '2025-12-23', cashAmount: '0.1120' },
      { exDate: '2026-03-12', paymentDate: '2026-03-24', cashAmount: '0.4100' },
      { exDate: '2026-08-12', paymentDate: '2026-09-03', cashAmount: '0.3550' },
      { exDate: '2026-12-10', paymentDate: '2026-12-22', cashAmount: '0.1200' },
      { exDate: '2027-03-11', paymentDate: '2027-03-23', cashAmount: '0.4000' },
    ],
    splits: [], constituents: [],
  },
  {
    symbol: 'SPYon', ticker: 'SPY', name: 'SPDR S&P 500 ETF Trust', kind: 'etf',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: true, listedAt: LAUNCH,
    basePrice: '645.05', annualVolatility: '0.16',
    sharesOutstanding: '1030000000', holders: 21984, averageDailyVolume: '70000000',
    dividends: regularDividends({ firstExDate: '2024-03-15', everyMonths: 3, until: SCHEDULE_END, paymentLagDays: 45, amountByYear: { 2024: '1.7', 2025: '1.76', 2026: '1.85' } }),
    splits: [], constituents: [],
  },
  {
    symbol: 'QQQon', ticker: 'QQQ', name: 'Invesco QQQ Trust, Series 1', kind: 'etf',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: true, listedAt: LAUNCH,
    basePrice: '570.07', annualVolatility: '0.21',
    sharesOutstanding: '390000000', holders: 16730, averageDailyVolume: '45000000',
    dividends: regularDividends({ firstExDate: '2024-03-18', everyMonths: 3, until: SCHEDULE_END, paymentLagDays: 12, amountByYear: { 2024: '0.57', 2025: '0.63', 2026: '0.7' } }),
    splits: [], constituents: [],
  },
  {
    symbol: 'IWMon', ticker: 'IWM', name: 'iShares Russell 2000 ETF', kind: 'etf',
    tradableSessions: EXTENDED_HOURS, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '235.21', annualVolatility: '0.22',
    sharesOutstanding: '300000000', holders: 4590, averageDailyVolume: '30000000',
    dividends: regularDividends({ firstExDate: '2024-03-21', everyMonths: 3, until: SCHEDULE_END, paymentLagDays: 6, amountByYear: { 2024: '0.57', 2025: '0.6', 2026: '0.65' } }),
    splits: [], constituents: [],
  },
  {
    symbol: 'TLTon', ticker: 'TLT', name: 'iShares 20+ Year Treasury Bond ETF', kind: 'etf',
    tradableSessions: EXTENDED_HOURS, tradableOffhours: false, listedAt: LAUNCH,
    basePrice: '87.14', annualVolatility: '0.14',
    sharesOutstanding: '180000000', holders: 3844, averageDailyVolume: '35000000',
    dividends: regularDividends({ firstExDate: '2024-01-02', everyMonths: 1, until: SCHEDULE_END, paymentLagDays: 5, amountByYear: { 2024: '0.31', 2025: '0.32', 2026: '0.33' } }),
    splits: [], constituents: [],
  },
  {
    // One token holds a fixed basket of the seven largest US technology names.
    symbol: 'MAG7on', ticker: 'MAG7', name: 'Magnificent Seven Portfolio', kind: 'portfolio',
    tradableSessions: WITH_OVERNIGHT, tradableOffhours: false, listedAt: '2025-10-15',
    basePrice: '100', annualVolatility: '0.3',
    sharesOutstanding: '1250000', holders: 2876, averageDailyVolume: '250000',
    dividends: [], splits: [],
    constituents: [
      { symbol: 'AAPLon', units: '0.04' },
      { symbol: 'MSFTon', units: '0.04' },
      { symbol: 'GOOGLon', units: '0.04' },
      { symbol: 'AMZNon', units: '0.04' },
      { symbol: 'NVDAon', units: '0.04' },
      { symbol: 'METAon', units: '0.04' },
      { symbol: 'TSLAon', units: '0.04' },
    ],
  },
];
