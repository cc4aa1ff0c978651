/**
 * One Server-Sent Events response as a subscriber of the hub: events written as they come, a heartbeat comment
 * every `heartbeatMs`, and a client that leaves more than `maxBufferedBytes` unread dropped with a reason (a final
 * `dropped` event) so it never holds memory without bound.
 */
import type { ServerResponse } from 'node:http';
import type { StreamEvent } from './events';
import type { Subscriber } from './subscriptions';

export interface SseOptions {
  heartbeatMs: number;
  maxBufferedBytes: number;
  /** Extra response headers (CORS, request id). */
  headers?: Record<string, string>;
}

/** How long a dropped client gets to read its last bytes before its connection is cut. */
const DROP_LINGER_MS = 5_000;
/** The reconnection delay browsers are told to use. */
const RETRY_MS = 3_000;

export class SseConnection implements Subscriber {
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly onCloseHandlers: (() => void)[] = [];

  constructor(
    private readonly response: ServerResponse,
    private readonly options: SseOptions,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends the headers and starts the heartbeat; `onClose` runs once when the stream ends for any reason. */
  open(onClose: () => void): void {
    this.onCloseHandlers.push(onClose);
    const { response } = this;
    if (response.destroyed) {
      this.finish();
      return;
    }
    response.socket?.setNoDelay(true);
    response.socket?.setTimeout(0);
    response.writeHead(200, {
      ...this.options.headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.write(`retry: ${RETRY_MS}\n\n`);
    response.on('close', () => this.finish());
    this.heartbeat = setInterval(() => this.write(': heartbeat\n\n'), this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  deliver(event: StreamEvent): void {
    this.write(event.sse);
  }

  /** Ends the stream with a last `dropped` event saying why, then closes the connection. */
  end(reason: string): void {
    if (this.closed) return;
    const { response } = this;
    response.once('finish', () => response.destroy());
    response.end(`event: dropped\ndata: ${JSON.stringify({ reason })}\n\n`);
    setTimeout(() => response.destroy(), DROP_LINGER_MS).unref();
    this.finish();
  }

  private write(chunk: string): void {
    if (this.closed) return;
    const unsent = this.response.writableLength;
    if (unsent > this.options.maxBufferedBytes) {
      this.end(`slow consumer: ${unsent} bytes unread (limit ${this.options.maxBufferedBytes})`);
      return;
    }
    this.response.write(chunk);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const handler of this.onCloseHandlers.splice(0)) handler();
  }
}
