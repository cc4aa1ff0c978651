/**
 * The Temporal service on its own: `npm run temporal:server -- [--host H] [--port N] [--database-url URL]`.
 * Listens on 127.0.0.1 unless --host names another address (`0.0.0.0` in a container; default port 7233), namespace `default`, until SIGINT/SIGTERM. With a database URL
 * it is durable: runs are stored in PostgreSQL and carried on after a restart; without one everything stays
 * in memory.
 */
import { exitWithUsageOnHelp } from '../config/cli';
import { startTemporalServer } from './index';

const usage = `usage: npm run temporal:server -- [--port N] [--database-url URL]
  --port N              listen on 127.0.0.1:N (default 7233)
  --database-url URL    durable: runs kept in this PostgreSQL and carried on after a restart (default: in memory)`;
function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  const value = args[index + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
}

function portFromArgs(args: string[]): number {
  const text = option(args, '--port');
  if (text === undefined) return 7233;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port needs a port number, got "${text}"`);
  return port;
}

async function main(): Promise<void> {
  exitWithUsageOnHelp(usage);
  const args = process.argv.slice(2);
  const databaseUrl = option(args, '--database-url');
  const temporal = await startTemporalServer({ port: portFromArgs(args), host: option(args, '--host') ?? '127.0.0.1', databaseUrl });
  if (temporal.durable) {
    const { runs, openRuns, ms } = temporal.restored;
    console.log(`Durable Temporal listening on ${temporal.address} (namespace ${temporal.namespace}); restored ${runs} runs (${openRuns} open) in ${ms} ms`);
  } else {
    console.log(`In-memory Temporal listening on ${temporal.address} (namespace ${temporal.namespace})`);
  }
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
