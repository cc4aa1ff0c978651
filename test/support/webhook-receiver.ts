/**
 * A webhook receiver on 127.0.0.1 for the delivery tests: it verifies each request with the Standard Webhooks
 * library, answers as the test scripts it (per `webhook-id` and arrival), and keeps every arrival in order, so a
 * test can dedup by `webhook-id` as a real receiver does and check what arrived, how often and in what order.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookEnvelope } from '../../domain/webhook-events';

/**
 * What the receiver does with a request: answer with a status (and headers), after `delayMs` for a slow receiver, or
 * hold it open until `release`.
 */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

export interface Arrival {
  id: string;
  /** Arrivals of this id so far, this one included. */
  attempt: number;
  envelope: WebhookEnvelope;
  /** Whether the signature verified with the endpoint's secret. */
  verified: boolean;
  arrivedAt: number;
  /** When a 2xx was sent back; null otherwise. */
  acceptedAt: number | null;
}

export interface TestReceiver {
  url: string;
  arrivals: Arrival[];
  /** The distinct webhook ids that got a 2xx, in the order of their first 2xx. */
  accepted(): string[];
  /** Answers held open (`hang`) are dropped. */
  release(): void;
  close(): Promise<void>;
}

/** Starts a receiver; `secret` verifies the signatures; `answer` decides each answer. */
export async function startTestReceiver(secret: () => string, answer: (arrival: Arrival) => ReceiverAnswer): Promise<TestReceiver> {
  const arrivals: Arrival[] = [];
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      let verified = true;
      try {
        new Webhook(secret()).verify(body, headers);
      } catch {
        verified = false;
      }
      const id = headers['webhook-id'] ?? '';
      const arrival: Arrival = {
        id,
        attempt: arrivals.filter((earlier) => earlier.id === id).length + 1,
        envelope: JSON.parse(body) as WebhookEnvelope,
        verified,
        arrivedAt: Date.now(),
        acceptedAt: null,
      };
      arrivals.push(arrival);
      const decision = answer(arrival);
      if (decision === 'hang') {
        held.add(response);
        return;
      }
      const reply = () => {
        if (decision.status >= 200 && decision.status < 300) arrival.acceptedAt = Date.now();
        response.writeHead(decision.status, { 'content-type': 'text/plain', ...decision.headers }).end(`answered ${decision.status}`);
      };
      if (decision.delayMs === undefined) reply();
      else setTimeout(reply, decision.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const release = () => {
    for (const response of held) response.destroy();
    held.clear();
  };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    accepted: () => [...new Set(arrivals.filter((arrival) => arrival.acceptedAt !== null).map((arrival) => arrival.id))],
    release,
    async close() {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
