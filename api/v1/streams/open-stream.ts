/**
 * Turns a validated stream request into a Server-Sent Events response: the per-key allowance is taken (429 when
 * none is left) and everything that can fail is done before the headers go out, so failures keep the documented
 * `{code, message, documentation}` shape; then the response subscribes to the fan-out until the client leaves.
 */
import type { ParameterizedContext } from 'koa';
import type { StreamRequest } from '../../../streams/hub';
import type { MarketStreams } from '../../../streams/market-streams';
import { SseConnection } from '../../../streams/sse';
import { ApiError } from '../../../domain/errors';
import { openStreams, rateLimitRefusals } from '../../../metrics/metrics';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';

/** The fan-out of this process; routes answer 404 where the process serves no streams. */
export function marketStreams(services: ApiServices): MarketStreams {
  if (!services.streams) throw new ApiError('RESOURCE_NOT_FOUND', 'Live streams are not served by this process');
  return services.streams;
}

export async function openEventStream(ctx: ParameterizedContext<ApiState>, streams: MarketStreams, request: StreamRequest): Promise<void> {
  const keyId = ctx.state.apiKey?.id;
  if (!keyId) throw new ApiError('MISSING_API_KEY', 'Missing API key: send it in the x-api-key header');
  await streams.hub.prepare(request);
  const release = streams.quota.acquire(keyId);
  if (!release) {
    rateLimitRefusals.inc({ transport: 'http', policy: 'streams' });
    throw new ApiError('RATE_LIMITED', `Too many open streams for this API key (at most ${streams.quota.perKey})`);
  }

  ctx.respond = false;
  const connection = new SseConnection(ctx.res, {
    heartbeatMs: streams.settings.heartbeatMs,
    maxBufferedBytes: streams.settings.maxBufferedBytes,
  });
  const subscription = { unsubscribe: (): void => undefined };
  openStreams.inc({ transport: 'sse' });
  connection.open(() => {
    subscription.unsubscribe();
    release();
    openStreams.dec({ transport: 'sse' });
  });
  if (connection.isClosed) return;
  subscription.unsubscribe = streams.hub.subscribe(request, connection, ctx.get('last-event-id') || undefined);
  if (connection.isClosed) subscription.unsubscribe();
}
