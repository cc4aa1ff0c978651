/**
 * The campaign's TCP fault proxy on loopback: one listening port per link between two parts of the product (a
 * worker's PostgreSQL, an EVM chain's RPC, the Temporal service…), each accepted connection piped to the target.
 * Healthy, it only forwards. A `LinkFault` adds `latencyMs` to every chunk either way (order kept) and cuts
 * connections: a new one at once with probability `dropRate`, an open one with that probability each second (both
 * ends destroyed, as a broken link looks to either side). The draws come from the campaign's seeded randomness.
 * The proxy stays on its port while the parts behind it restart: a new connection reaches whatever listens there then.
 */
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import type { LinkFault } from './model';
import type { Random } from './random';

export interface LinkProxy {
  name: string;
  /** The loopback port the link's client connects to instead of the target's. */
  port: number;
  set(fault: LinkFault | undefined): void;
  /** Connections open now (both ends of each). */
  open(): number;
  /** Stops listening and destroys every open connection. */
  stop(): Promise<void>;
}

export interface LinkProxyParameters {
  name: string;
  target: { host: string; port: number };
  random: Random;
  /** 0 (default): a free port. */
  port?: number;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

/** How often open connections are given their chance to be cut while `dropRate` is set. */
const DROP_TICK_MS = 1_000;

export async function startLinkProxy(parameters: LinkProxyParameters): Promise<LinkProxy> {
  const { name, target, random } = parameters;
  let fault: LinkFault | undefined;
  const pairs = new Set<Pair>();
  const cut = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream.destroy();
    pairs.delete(pair);
  };

  /** Writes what `from` reads into `to`, each chunk held `latencyMs` (as set when it arrived) and never overtaking another. */
  const pipe = (from: Socket, to: Socket) => {
    let due = 0;
    from.on('data', (chunk) => {
      const latency = fault?.latencyMs ?? 0;
      if (latency === 0 && due <= Date.now()) {
        to.write(chunk);
        return;
      }
      // Timers due at the same or a later instant fire in the order they were set: chunks keep their order.
      due = Math.max(Date.now() + latency, due);
      setTimeout(() => {
        if (!to.destroyed) to.write(chunk);
      }, due - Date.now());
    });
    from.on('end', () => {
      const wait = Math.max(0, due - Date.now());
      setTimeout(() => to.end(), wait);
    });
  };

  const server = createServer((client) => {
    const upstream = createConnection(target);
    const pair = { client, upstream };
    pairs.add(pair);
    const close = () => cut(pair);
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
    if (fault?.dropRate && random.chance(fault.dropRate)) return close();
    pipe(client, upstream);
    pipe(upstream, client);
  });
  const ticker = setInterval(() => {
    const rate = fault?.dropRate;
    if (!rate) return;
    for (const pair of [...pairs]) if (random.chance(rate)) cut(pair);
  }, DROP_TICK_MS);
  ticker.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(parameters.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    name,
    port: (server.address() as AddressInfo).port,
    set(next) {
      fault = next;
    },
    open: () => pairs.size,
    async stop() {
      clearInterval(ticker);
      for (const pair of [...pairs]) cut(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
