/**
 * The live streams of one process: the fan-out hub, the per-key allowance of open streams, and the limits every
 * transport (Server-Sent Events, gRPC) applies to its subscribers.
 */
import { MarketStreamHub, type MarketStreamHubOptions } from './hub';
import { StreamQuota } from './stream-quota';

export interface StreamSettings {
  /** How often an idle SSE stream gets a heartbeat comment (default 15 s). */
  heartbeatMs: number;
  /** Unsent bytes an SSE client may leave before it is dropped (default 1 MiB). */
  maxBufferedBytes: number;
  /** Unsent messages a gRPC client may leave before it is dropped (default 4,096). */
  maxPendingMessages: number;
  /** Streams one API key may hold open in this process (default 100). */
  streamsPerKey: number;
  /** How long a BackendService stream gathers updates into one frame (default 50 ms). */
  frameWindowMs: number;
}

export interface MarketStreams {
  hub: MarketStreamHub;
  quota: StreamQuota;
  settings: StreamSettings;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  heartbeatMs: 15_000,
  maxBufferedBytes: 1024 * 1024,
  maxPendingMessages: 4_096,
  streamsPerKey: 100,
  frameWindowMs: 50,
};

export function createMarketStreams(options: MarketStreamHubOptions & { settings?: Partial<StreamSettings> }): MarketStreams {
  const settings = { ...DEFAULT_STREAM_SETTINGS, ...options.settings };
  return { hub: new MarketStreamHub(options), quota: new StreamQuota(settings.streamsPerKey), settings };
}
