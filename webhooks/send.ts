/**
 * One webhook request: a POST of the signed envelope over node:http(s), its socket connected only to an address the
 * URL guard accepts at that instant, no redirect followed, a deadline on the whole exchange, and at most 1 KiB of the
 * answer kept (for the owner to read in the attempt's record).
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { WebhookAddressRefused, addressJudge, guardedLookup, hostOf, type Resolver, type UrlPolicy } from './url-guard';

/** Bytes of the answer kept; the rest is not read. */
export const RESPONSE_EXCERPT_BYTES = 1_024;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookSendOptions {
  policy: UrlPolicy;
  timeoutMs: number;
  /** Keep-alive agents (one of each scheme), so deliveries to an endpoint reuse their connections. */
  agents: { http: http.Agent; https: https.Agent };
  /** Default: the system's DNS. */
  resolve?: Resolver;
}

/** What came back: a status (any, 3xx included: redirects are not followed), or why there was none. */
export interface WebhookResponse {
  /** null: no answer (refused, unreachable, timed out). */
  status: number | null;
  /** Why there was no answer, or null. */
  error: string | null;
  /** `refused`: the host resolved to a forbidden address, no connection was opened. */
  refused: boolean;
  /** The first RESPONSE_EXCERPT_BYTES of the body, as UTF-8. */
  excerpt: string | null;
  /** The peer's address, when a connection was made. */
  address: string | null;
  /** The receiver's `Retry-After` in milliseconds from now, when it sent a valid one. */
  retryAfterMs: number | null;
  durationMs: number;
}

/** Keep-alive agents for the delivery sockets; `destroy` them when the worker stops. */
export function createWebhookAgents(maxSocketsPerHost: number): WebhookSendOptions['agents'] {
  const options = { keepAlive: true, maxSockets: maxSocketsPerHost, maxFreeSockets: maxSocketsPerHost, scheduling: 'lifo' as const };
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

/** `Retry-After` as milliseconds from `now`: delay-seconds or an HTTP-date; null when absent or malformed. */
export function parseRetryAfter(header: string | undefined, now: number): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (/^\d{1,10}$/.test(value)) return Number(value) * 1_000;
  const at = Date.parse(value);
  return Number.isNaN(at) || !/[a-z]/i.test(value) ? null : Math.max(0, at - now);
}

/** Posts `request`; never throws (every failure is an answer for the attempt's record). */
export function sendWebhook(request: WebhookRequest, options: WebhookSendOptions): Promise<WebhookResponse> {
  const started = performance.now();
  const url = new URL(request.url);
  const secure = url.protocol === 'https:';
  const body = Buffer.from(request.body, 'utf8');
  // An IP literal is connected to without a lookup: judged here instead.
  const literal = hostOf(url);
  const refusal = isIP(literal) === 0 ? null : addressJudge(options.policy)(literal);
  if (refusal !== null) {
    return Promise.resolve({ status: null, error: refusal, refused: true, excerpt: null, address: null, retryAfterMs: null, durationMs: 0 });
  }
  return new Promise<WebhookResponse>((resolve) => {
    let address: string | null = null;
    const finish = (answer: Omit<WebhookResponse, 'durationMs' | 'address'>) =>
      resolve({ ...answer, address, durationMs: Math.round(performance.now() - started) });
    const outgoing = (secure ? https : http).request(url, {
      method: 'POST',
      agent: secure ? options.agents.https : options.agents.http,
      lookup: guardedLookup(options.policy, options.resolve),
      headers: { ...request.headers, 'content-length': String(body.length) },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    outgoing.on('socket', (socket) => {
      // A kept-alive socket is connected already; a new one is known once it connects.
      if (socket.connecting) socket.once('connect', () => (address = socket.remoteAddress ?? null));
      else address = socket.remoteAddress ?? null;
    });
    outgoing.on('response', (response) => {
      const kept: Buffer[] = [];
      let bytes = 0;
      const answer = () => ({
        status: response.statusCode ?? null,
        error: null,
        refused: false,
        excerpt: Buffer.concat(kept).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8'),
        retryAfterMs: parseRetryAfter(response.headers['retry-after'], Date.now()),
      });
      response.on('data', (chunk: Buffer) => {
        kept.push(chunk);
        bytes += chunk.length;
        // Enough of it: the rest is not read (the connection is given up rather than drained).
        if (bytes >= RESPONSE_EXCERPT_BYTES) {
          finish(answer());
          response.destroy();
        }
      });
      response.on('end', () => finish(answer()));
      // A body cut short (the deadline, the peer gone) still has its status: the receiver answered.
      response.on('error', () => finish(answer()));
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      const refused = error instanceof WebhookAddressRefused;
      const reason =
        error.name === 'AbortError' || error.name === 'TimeoutError'
          ? `no answer within ${options.timeoutMs} ms`
          : `${error.code ?? error.name}: ${error.message}`;
      finish({ status: null, error: refused ? error.message : reason, refused, excerpt: null, retryAfterMs: null });
    });
    outgoing.end(body);
  });
}
