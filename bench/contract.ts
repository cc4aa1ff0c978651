/**
 * The OpenAPI document's costs: generating it from the declared operations, and checking one answer against it
 * (what `CHECK_ANSWERS` adds to each request): a small answer (one price) and a large one (a day of minute candles).
 */
import { AnswerChecker } from '../api/contract/answer-check';
import { buildOpenApiDocument } from '../api/contract/document';
import { API_RESOURCES } from '../api/resources';
import { WEBHOOK_EVENT_DOCUMENTS } from '../api/v1/webhooks/router';

export interface ContractFigures {
  documentMs: number;
  smallAnswerUs: number;
  largeAnswerUs: number;
}

function perCallUs(count: number, run: () => void): number {
  const started = performance.now();
  for (let index = 0; index < count; index += 1) run();
  return ((performance.now() - started) * 1000) / count;
}

export function benchContract(): ContractFigures {
  const baseUrl = 'http://127.0.0.1:8080';
  const options = { baseUrl, webhooks: WEBHOOK_EVENT_DOCUMENTS };
  const documentMs = perCallUs(20, () => buildOpenApiDocument(API_RESOURCES, options)) / 1000;
  const checker = new AnswerChecker(buildOpenApiDocument(API_RESOURCES, options));
  const price = { primaryMarket: { symbol: 'AAPLon', price: '231.456' }, underlyingMarket: { ticker: 'AAPL', price: '232.01' }, timestamp: 1_763_900_000_000 };
  const candle = (index: number) => ({ timestamp: 1_763_900_000_000 + index * 60_000, open: '231.4', high: '231.9', low: '231.1', close: '231.6' });
  const candles = Array.from({ length: 1_440 }, (_, index) => candle(index));
  const ohlc = { interval: '1min', range: '1day', primaryMarket: { symbol: 'AAPLon', data: candles }, underlyingMarket: { ticker: 'AAPL', data: candles } };
  const check = (path: string, body: unknown) => {
    if (checker.problem('GET', path, 200, 'application/json', body)) throw new Error(`the bench answer for ${path} is off the document`);
  };
  check('/v1/assets/AAPLon/prices/latest', price);
  check('/v1/assets/AAPLon/prices/ohlc', ohlc);
  return {
    documentMs,
    smallAnswerUs: perCallUs(100_000, () => check('/v1/assets/AAPLon/prices/latest', price)),
    largeAnswerUs: perCallUs(500, () => check('/v1/assets/AAPLon/prices/ohlc', ohlc)),
  };
}
