/** What the two Server-Sent Events operations share in the OpenAPI document: resuming, framing, heartbeat, errors. */
import type { ErrorCode } from '../../../domain/error-codes';

export const LAST_EVENT_ID_HEADER =
  "Resume after this event: the `id` of the last event received. Events of this process's replay window (about two minutes) that came after it are sent first; an id it no longer holds (or another process's) starts afresh from the latest values.";

/** The answer description of a stream: its own events, then what every stream does. */
export function streamDescription(events: string): string {
  return [
    'The stream stays open until the client leaves. It starts with `retry: 3000` (the reconnection delay), then sends events as `id`, `event` and `data` (one JSON line) fields.',
    events,
    'Each event has an `id` to resume from with `Last-Event-ID`. A comment line (`: heartbeat`) comes every 15 seconds by default, so idle connections stay up. A client that leaves too much unread gets a last `dropped` event, `data` `{reason}`, and the connection closes; so do all streams when the service shuts down.',
  ].join('\n\n');
}

/**
 * The codes a stream can refuse with before it opens: no streams served by this process (404), a malformed or
 * unknown symbol. Too many open streams for the key is `RATE_LIMITED`, which every keyed operation has.
 */
export const STREAM_ERRORS = ['RESOURCE_NOT_FOUND', 'INVALID_SYMBOL', 'ASSET_NOT_FOUND'] as const satisfies readonly ErrorCode[];
