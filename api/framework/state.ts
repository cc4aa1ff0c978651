/** What the framework middleware leaves on `ctx.state` for handlers. */
import type { ApiKey } from '../../db/queries/api-keys';

export interface ApiState {
  requestId: string;
  /** The client's address: the peer's, or X-Forwarded-For's when the peer is a trusted proxy (client-address.ts). */
  clientAddress: string;
  apiKey?: ApiKey;
  /** The declared operation the request matched (api/contract/dispatch.ts). */
  operationId?: string;
}
