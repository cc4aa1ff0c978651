/** TCP ports free right now on 127.0.0.1, for parts that must be told their port before they listen (PORT=0 elsewhere). */
import net from 'node:net';

function listening(): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
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
