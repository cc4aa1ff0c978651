/** Serves the Koa app over HTTP, and closes it gracefully (in-flight requests finish first). */
import type { Server } from 'node:http';
import type { App } from './app';

export interface RunningServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function listen(app: App, options: { host: string; port: number }): Promise<RunningServer> {
  const server = app.koa.listen({ host: options.host, port: options.port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
