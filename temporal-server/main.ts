/**
 * Standalone in-memory Temporal service: `npm run temporal:server -- [--port N]`.
 * Listens on 127.0.0.1 (default port 7233), namespace `default`, until SIGINT/SIGTERM.
 */
import { startInMemoryTemporal } from './index';

function portFromArgs(args: string[]): number {
  const index = args.indexOf('--port');
  if (index < 0) return 7233;
  const port = Number(args[index + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port needs a port number, got "${args[index + 1] ?? ''}"`);
  return port;
}

async function main(): Promise<void> {
  const temporal = await startInMemoryTemporal({ port: portFromArgs(process.argv.slice(2)), host: '127.0.0.1' });
  console.log(`In-memory Temporal listening on ${temporal.address} (namespace ${temporal.namespace})`);
  const shutdown = () => {
    void temporal.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
