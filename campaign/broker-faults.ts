/**
 * The campaign's HTTP proxy between the workers (their BROKER_URL) and the brokerage sandbox, through which the
 * broker misbehaves on demand (`BrokerFault`, campaign/model.ts). Healthy, it forwards each request as it came and
 * answers what the sandbox answered. The faults:
 * - slow: each request is held `delayMs` before it is forwarded;
 * - failing: answered `status` (`{code: "INTERNAL_ERROR", …}`, Retry-After on 503) without being forwarded;
 * - timeout: held, never forwarded nor answered, until the client gives up (its own timeout) or the proxy stops;
 * - duplicate: forwarded twice, one after the other, the second answer given (the sandbox sees every call twice);
 * - partial: the sandbox fills at most `maxFillQty` shares per fill (its liquidity, changed while it runs);
 * - reject: an order placed (POST …/orders) is refused as the sandbox refuses one it cannot fill — 422
 *   `SYMBOL_NOT_TRADABLE` — without being forwarded; every other call goes through.
 * `set(undefined)` heals: requests held by `timeout` stay held until their clients give up, as on a real outage.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrokerFault } from './model';

export interface BrokerProxy {
  /** The broker URL the workers are given. */
  url: string;
  set(fault: BrokerFault | undefined): void;
  /** Requests forwarded to the sandbox so far (a duplicated one counts twice). */
  forwarded(): number;
  stop(): Promise<void>;
}

export interface BrokerProxyParameters {
  /** The sandbox's URL. */
  target: string;
  /** Changes the sandbox's liquidity of one fill (RunningBroker.setMaxFillQty). */
  setMaxFillQty(qty: string | undefined): void;
  /** 0 (default): a free port. */
  port?: number;
}

/** Headers of the hop, not of the request: not passed on. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
/** The sandbox's answer headers the broker client may read. */
const ANSWER_HEADERS = ['content-type', 'retry-after', 'idempotent-replayed'];

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function answerJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

export async function startBrokerProxy(parameters: BrokerProxyParameters): Promise<BrokerProxy> {
  const target = parameters.target.replace(/\/+$/, '');
  let fault: BrokerFault | undefined;
  let forwarded = 0;
  const held = new Set<ServerResponse>();

  const forward = async (request: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string>; text: string }> => {
    forwarded++;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) if (!HOP_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
    const answer = await fetch(`${target}${request.url}`, { method: request.method, headers, body: body.length > 0 ? new Uint8Array(body) : undefined });
    const kept: Record<string, string> = {};
    for (const name of ANSWER_HEADERS) {
      const value = answer.headers.get(name);
      if (value !== null) kept[name] = value;
    }
    return { status: answer.status, headers: kept, text: await answer.text() };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readBody(request);
    const now = fault;
    if (now?.kind === 'failing') {
      answerJson(response, now.status, { code: 'INTERNAL_ERROR', message: `the broker is failing (campaign fault, ${now.status})` }, now.status === 503 ? { 'retry-after': '1' } : {});
      return;
    }
    if (now?.kind === 'timeout') {
      held.add(response);
      response.on('close', () => held.delete(response));
      return;
    }
    if (now?.kind === 'reject' && request.method === 'POST' && /\/orders$/.test(new URL(request.url ?? '/', target).pathname)) {
      answerJson(response, 422, { code: 'SYMBOL_NOT_TRADABLE', message: 'The broker refuses orders (campaign fault)' });
      return;
    }
    if (now?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, now.delayMs));
    if (now?.kind === 'duplicate') await forward(request, body);
    const answer = await forward(request, body);
    response.writeHead(answer.status, answer.headers);
    response.end(answer.text);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // The sandbox unreachable (stopped): the workers see what a gateway in front of it would answer.
      if (!response.headersSent) answerJson(response, 502, { code: 'INTERNAL_ERROR', message: `the broker is unreachable: ${(error as Error).message}` });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(parameters.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set(next) {
      if (fault?.kind === 'partial' && next?.kind !== 'partial') parameters.setMaxFillQty(undefined);
      if (next?.kind === 'partial') parameters.setMaxFillQty(next.maxFillQty);
      fault = next;
    },
    forwarded: () => forwarded,
    async stop() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
