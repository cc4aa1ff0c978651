/** Pure-domain figures: cost of one price-model evaluation and of a session lookup, as a backfill sees them. */
import { sessionAt } from '../domain/calendar';
import { findAsset } from '../domain/catalogue';
import { tokenPrice, underlyingPrice } from '../domain/market/price-model';

export interface DomainFigures {
  priceEvaluationUs: number;
  portfolioEvaluationUs: number;
  sessionLookupNs: number;
}

function perCallUs(count: number, run: (index: number) => void): number {
  const started = performance.now();
  for (let index = 0; index < count; index += 1) run(index);
  return ((performance.now() - started) * 1000) / count;
}

export function benchDomain(): DomainFigures {
  const aapl = findAsset('AAPLon')!;
  const portfolio = findAsset('MAG7on')!;
  const start = Date.parse('2026-11-20T15:00:00Z');
  perCallUs(20_000, (i) => tokenPrice(aapl, start + i * 1000));
  return {
    priceEvaluationUs: perCallUs(200_000, (i) => (i % 2 ? tokenPrice(aapl, start + i * 1000) : underlyingPrice(aapl, start + i * 1000))),
    portfolioEvaluationUs: perCallUs(20_000, (i) => tokenPrice(portfolio, start + i * 1000)),
    sessionLookupNs: perCallUs(2_000_000, (i) => sessionAt(start + i * 60_000)) * 1000,
  };
}
