/** Every /v1 route with the scope it needs and a request that succeeds with that scope. */
import type { KeyScope } from '../../db/queries/api-keys';

export interface RouteCase {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  scope: KeyScope;
  body?: unknown;
  /** Status of a successful call with the scope (default 200). */
  okStatus?: number;
}

export const ROUTES: RouteCase[] = [
  { method: 'get', path: '/v1/assets/all/prices/latest', scope: 'read' },
  { method: 'get', path: '/v1/assets/all/prices/latest/enhanced', scope: 'read' },
  { method: 'get', path: '/v1/assets/AAPLon/prices/latest', scope: 'read' },
  { method: 'get', path: '/v1/assets/AAPLon/market', scope: 'read' },
  { method: 'get', path: '/v1/assets/AAPLon/prices/ohlc?interval=1hour&range=1month', scope: 'read' },
  { method: 'get', path: '/v1/assets/AAPLon/shares-multiplier?range=all', scope: 'read' },
  { method: 'get', path: '/v1/assets/AAPLon/dividends', scope: 'read' },
  { method: 'get', path: '/v1/assets/all/addresses', scope: 'read' },
  { method: 'get', path: '/v1/assets/AAPLon/addresses', scope: 'read' },
  { method: 'get', path: '/v1/tickers', scope: 'read' },
  { method: 'get', path: '/v1/limits/session', scope: 'read' },
  { method: 'get', path: '/v1/status/market', scope: 'read' },
  { method: 'get', path: '/v1/status/assets', scope: 'read' },
  { method: 'post', path: '/v1/status/market/pause', scope: 'admin', body: { reason: 'drill' } },
  { method: 'post', path: '/v1/status/market/resume', scope: 'admin' },
  { method: 'post', path: '/v1/status/assets/AAPLon/pause', scope: 'admin', body: { reason: 'drill' } },
  { method: 'post', path: '/v1/status/assets/AAPLon/resume', scope: 'admin' },
  { method: 'post', path: '/v1/status/assets/AAPLon/limit', scope: 'admin', body: { reason: 'drill' } },
  { method: 'post', path: '/v1/status/assets/AAPLon/unlimit', scope: 'admin' },
  {
    method: 'post',
    path: '/v1/status/assets/events',
    scope: 'admin',
    body: { symbol: 'AAPLon', code: 'ASSET_PAUSED', reason: 'cash_dividend', start: 4_102_444_800_000, end: 4_102_448_400_000 },
  },
  { method: 'delete', path: '/v1/status/assets/events/evt_missing', scope: 'admin' },
  {
    method: 'put',
    path: '/v1/limits/session/AAPLon/regular',
    scope: 'admin',
    body: { tradable: true, maxAttestationCount: '20', maxActiveNotionalValue: '250000' },
  },
  {
    method: 'post',
    path: '/v1/market-data/ticks',
    scope: 'admin',
    body: { ticks: [{ symbol: 'AAPLon', timestamp: 1_700_000_000_000, underlyingPrice: '190.5' }] },
  },
  { method: 'get', path: '/v1/limits/trading?symbol=AAPLon&side=buy', scope: 'read' },
  { method: 'get', path: '/v1/attestations/1', scope: 'read', okStatus: 404 },
  { method: 'get', path: '/v1/attestations', scope: 'write' },
  { method: 'post', path: '/v1/attestations', scope: 'write', body: { symbol: 'SPYon', side: 'buy', tokenAmount: '1' } },
  { method: 'post', path: '/v1/attestations/soft', scope: 'write', body: { symbol: 'SPYon', side: 'buy', tokenAmount: '1' } },
  { method: 'get', path: '/v1/webhooks', scope: 'write' },
  { method: 'get', path: '/v1/workflows', scope: 'admin' },
  { method: 'get', path: '/v1/workflows/market-data-retention', scope: 'admin' },
  { method: 'get', path: '/v1/workflows/market-data-retention/history', scope: 'admin' },
];
