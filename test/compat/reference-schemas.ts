/**
 * The reference issuer's REST interface as the compatibility suite knows it: the JSON Schemas it wrote from the
 * reference's pages (reference/, draft 2020-12), checked with ajv and ajv-formats, and the twenty operations both
 * interfaces have, each with a request that succeeds and the schema of its 200.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const SCHEMAS = path.join(__dirname, 'reference');

/** Each schema file as written, by file name. */
export const REFERENCE_SCHEMAS: Record<string, object> = Object.fromEntries(
  readdirSync(SCHEMAS)
    .filter((name) => name.endsWith('.json'))
    .map((name) => [name, JSON.parse(readFileSync(path.join(SCHEMAS, name), 'utf8')) as object]),
);

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
for (const schema of Object.values(REFERENCE_SCHEMAS)) ajv.addSchema(schema);

/** What the schema (its file name without `.json`) finds wrong with `body`; '' when it conforms. */
export function complaints(schema: string, body: unknown): string {
  const validate = ajv.getSchema(`https://reference-issuer.compat/${schema}.json`);
  if (!validate) throw new Error(`no reference schema ${schema}.json`);
  return validate(body) ? '' : ajv.errorsText(validate.errors, { separator: '\n' });
}

export const ATTESTATION = { chainId: 'ethereum-1', symbol: 'AAPLon', side: 'buy', tokenAmount: '1.5', duration: 'short' };

export interface SharedOperation {
  /** Method and path as both interfaces write it: `GET /v1/assets/{symbol}/market`. */
  name: string;
  method: 'get' | 'post';
  /** A request that succeeds (`{AAPLon}`: the token's address on the chain). */
  url: string;
  body?: object;
  /** The schema of its 200. */
  schema: string;
  /** Answered from a chain's deployments and the chain watcher's records. */
  onChain?: true;
}

/** The twenty operations both interfaces have. */
export const SHARED: SharedOperation[] = [
  { name: 'POST /v1/attestations', method: 'post', url: '/v1/attestations', body: ATTESTATION, schema: 'create-attestation' },
  { name: 'POST /v1/attestations/soft', method: 'post', url: '/v1/attestations/soft', body: { chainId: 'ethereum-1', symbol: 'AAPLon', side: 'buy', tokenAmount: '1.5' }, schema: 'soft-quote' },
  { name: 'GET /v1/assets/all/prices/latest', method: 'get', url: '/v1/assets/all/prices/latest?sort=desc', schema: 'all-prices-latest' },
  { name: 'GET /v1/assets/{symbol}/prices/latest', method: 'get', url: '/v1/assets/AAPLon/prices/latest', schema: 'asset-price-latest' },
  { name: 'GET /v1/assets/all/prices/latest/enhanced', method: 'get', url: '/v1/assets/all/prices/latest/enhanced?sort=asc', schema: 'all-prices-latest-enhanced' },
  { name: 'GET /v1/assets/{symbol}/prices/ohlc', method: 'get', url: '/v1/assets/AAPLon/prices/ohlc?interval=1hour&range=1month', schema: 'ohlc' },
  { name: 'GET /v1/assets/all/market', method: 'get', url: '/v1/assets/all/market', schema: 'all-market' },
  { name: 'GET /v1/assets/{symbol}/market', method: 'get', url: '/v1/assets/AAPLon/market', schema: 'asset-market' },
  { name: 'GET /v1/assets/{symbol}/dividends', method: 'get', url: '/v1/assets/AAPLon/dividends', schema: 'dividends' },
  { name: 'GET /v1/assets/all/addresses', method: 'get', url: '/v1/assets/all/addresses', schema: 'all-addresses' },
  { name: 'GET /v1/assets/{symbol}/addresses', method: 'get', url: '/v1/assets/AAPLon/addresses', schema: 'asset-addresses' },
  { name: 'GET /v1/assets/all/metadata', method: 'get', url: '/v1/assets/all/metadata', schema: 'all-metadata' },
  { name: 'GET /v1/assets/{symbol}/shares-multiplier', method: 'get', url: '/v1/assets/AAPLon/shares-multiplier?range=all', schema: 'shares-multiplier' },
  { name: 'GET /v1/tickers', method: 'get', url: '/v1/tickers', schema: 'tickers' },
  { name: 'GET /v1/chains/{chainId}/balances', method: 'get', url: '/v1/chains/ethereum-1/balances', schema: 'chain-balances', onChain: true },
  { name: 'GET /v1/chains/{chainId}/tokens/{tokenAddress}/info', method: 'get', url: '/v1/chains/ethereum-1/tokens/{AAPLon}/info', schema: 'token-info', onChain: true },
  { name: 'GET /v1/limits/trading', method: 'get', url: '/v1/limits/trading?symbol=AAPLon&side=buy', schema: 'trading-limits' },
  { name: 'GET /v1/limits/session', method: 'get', url: '/v1/limits/session', schema: 'session-limits' },
  { name: 'GET /v1/status/market', method: 'get', url: '/v1/status/market', schema: 'market-status' },
  { name: 'GET /v1/status/assets', method: 'get', url: '/v1/status/assets', schema: 'asset-statuses' },
];
