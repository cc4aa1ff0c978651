/** What the framework middleware leaves on `ctx.state` for handlers. */
import type { ApiKey } from '../../db/queries/api-keys';

export interface ApiState {
  requestId: string;
  apiKey?: ApiKey;
}
