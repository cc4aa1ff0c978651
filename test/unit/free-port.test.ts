/**
 * Ports handed to parts before they listen (config/free-port.ts) come from below the range of outgoing connections'
 * local ports, so no connection opened meanwhile can take one first; they are distinct and free.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { freePorts } from '../../config/free-port';

test('free ports are distinct, free, and outside the local range of outgoing connections', async () => {
  const ports = await freePorts(16);
  expect(new Set(ports).size).toBe(16);
  const ephemeralFrom = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  for (const port of ports) expect(port).toBeLessThan(ephemeralFrom);
  const servers = await Promise.all(
    ports.map(
      (port) =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer().once('error', reject);
          server.listen(port, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});
