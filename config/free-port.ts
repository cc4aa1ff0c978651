/** TCP ports free right now on 127.0.0.1, for parts that must be told their port before they listen (PORT=0 elsewhere). */
import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * Where the ports are picked: below the range the system takes the local ports of outgoing connections from
 * (Linux: net.ipv4.ip_local_port_range, 32768–60999 by default). A port from listen(0) comes from that very range, so
 * any connection opened before the part told it listens — a database client's, another test's — could take it first.
 */
function pickingRange(): { from: number; to: number } | undefined {
  let ephemeralFrom = 32_768;
  try {
    ephemeralFrom = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    // not Linux: its default
  }
  const from = 10_000;
  return Number.isInteger(ephemeralFrom) && ephemeralFrom - from >= 4_096 ? { from, to: ephemeralFrom } : undefined;
}

const RANGE = pickingRange();
const ATTEMPTS = 64;

function listenOn(port: number): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** A server on a free port: a random one of the picking range (taken ones tried again), else one the system picks. */
async function listening(): Promise<net.Server> {
  for (let attempt = 0; RANGE && attempt < ATTEMPTS; attempt += 1) {
    const server = await listenOn(RANGE.from + Math.floor(Math.random() * (RANGE.to - RANGE.from)));
    if (server) return server;
  }
  const server = await listenOn(0);
  if (!server) throw new Error('no free TCP port on 127.0.0.1');
  return server;
}

/**
 * `count` distinct free ports: all held open until each is known, so two of them can never be the same port (asked
 * one after the other, the system may hand a just-closed port out again).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, listening));
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}
