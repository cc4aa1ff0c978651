/**
 * `npm start`: brings the whole product up on embedded defaults, prints a ready banner with the
 * development keys (none on DATABASE_URL unless DEVELOPMENT_KEYS=true), and on Ctrl-C (SIGINT), SIGTERM or SIGHUP — during start-up too — stops every part it started,
 * each within its deadline (start/parts.ts), then logs `stopped` and exits. Past `SHUTDOWN_DEADLINE_MS` in all, the
 * child processes left are killed and the process exits anyway.
 */
import { loadConfig } from '../config';
import { exitWithUsageOnHelp } from '../config/cli';
import { createLogger, exitAfterLogs } from '../config/logger';
import { startProduct, type RunningProduct } from './start-product';

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** The whole shutdown's deadline: above the sum of what the parts may take in the usual case, under what people wait. */
const SHUTDOWN_DEADLINE_MS = 60_000;

/** `entry[field]` when it is a string (the parts of stack.json beyond the API are untyped). */
function stringField(entry: unknown, field: string): string | undefined {
  const value = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value : undefined;
}

function printBanner(running: RunningProduct, dataDir: string): void {
  const { stack, keys } = running;
  const grpcAddress = stringField(stack.grpc, 'address');
  const brokerUrl = stringField(stack.broker, 'url');
  const solanaUrl = stringField((stack.chains as Record<string, unknown> | undefined)?.['solana-900'], 'rpcUrl');
  const banner = [
    '',
    '  Tokenized-stock issuer is ready',
    `  API          ${stack.api}`,
    ...(keys
      ? [`  read key     ${keys.read}`, `  write key    ${keys.write}`, `  admin key    ${keys.admin}`]
      : ['  keys         none made on DATABASE_URL (DEVELOPMENT_KEYS=true asks for them): npm run keys -- create --scope admin']),
    ...(typeof stack.metrics === 'string' ? [`  metrics      ${stack.metrics}`] : []),
    ...(stack.temporal ? [`  Temporal     ${stack.temporal.address} (namespace ${stack.temporal.namespace})`] : []),
    ...(grpcAddress ? [`  gRPC streams ${grpcAddress} (ondo.gm.backend.v1.BackendService: proto/ondo/gm/backend/v1/backend.proto, x-api-key metadata)`] : []),
    ...(solanaUrl ? [`  Solana       ${solanaUrl} (JSON-RPC; mints, treasury, nonce pool and solanaWallets in the stack file)`] : []),
    ...(brokerUrl ? [`  broker       ${brokerUrl} (brokerage sandbox: partner flow, see the README)`] : []),
    `  stack file   ${dataDir}/stack.json`,
    ...(keys ? [`  try          curl -s -H 'x-api-key: ${keys.read}' ${stack.api}/assets/all/prices/latest`] : []),
    '',
  ].join('\n');
  process.stdout.write(`${banner}\n`);
}

async function main(): Promise<void> {
  exitWithUsageOnHelp(`usage: npm start   the whole product on embedded defaults, configured by the environment (README, "Configuration"):
  PORT, GRPC_PORT, DATA_DIR, DATABASE_URL, PRICE_SOURCE, TEMPORAL_ADDRESS, RPC_URL_<CHAIN>, BROKER_URL, … ;
  writes DATA_DIR/stack.json (addresses, development keys) once ready; Ctrl-C, SIGTERM or SIGHUP stop it`);
  const config = loadConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const aborted = new AbortController();
  let running: RunningProduct | undefined;
  let stopping: Promise<void> | undefined;

  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    logger.info({ signal }, 'stopping');
    const started = Date.now();
    const deadline = setTimeout(() => {
      logger.error({ deadlineMs: SHUTDOWN_DEADLINE_MS }, 'shutdown past its deadline: killing what is left');
      running?.kill();
      exitAfterLogs(logger, 1);
    }, SHUTDOWN_DEADLINE_MS);
    aborted.abort(new Error(`${signal} during start-up`));
    stopping = (async () => {
      // Started: stop it. Still starting: the abort stops what had started, and the start settles once it has.
      await (running ? running.stop() : starting.then(() => running?.stop()).catch(() => undefined));
      clearTimeout(deadline);
      logger.info({ signal, ms: Date.now() - started }, 'stopped');
      exitAfterLogs(logger, 0);
    })();
  };
  // Ours from the very start, so that a signal during start-up stops what has started instead of ending the process
  // under it. Listeners the parts add for themselves (the Temporal runtime's) are taken off once started, so that
  // everything stops in order (the worker drains before the database goes). The scripts run TypeScript with
  // `node --import tsx`, not the tsx CLI: its parent process kills a child that does not acknowledge a signal within
  // 30 ms, which a busy start-up (or a loaded machine) misses, leaving PostgreSQL and the chains behind.
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, stop);

  const starting = startProduct(config, { logger, signal: aborted.signal });
  try {
    running = await starting;
  } catch (error) {
    if (stopping) return; // the start gave up because a signal asked it to; `stop` finishes the job
    process.stderr.write(`start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    if (error instanceof Error && error.cause) process.stderr.write(`cause: ${String(error.cause)}\n`);
    exitAfterLogs(logger, 1);
    return;
  }
  for (const signal of SHUTDOWN_SIGNALS) {
    for (const listener of process.listeners(signal)) if (listener !== stop) process.off(signal, listener as (...args: unknown[]) => void);
  }
  if (stopping) return;
  printBanner(running, config.DATA_DIR);
}

main().catch((error: unknown) => {
  process.stderr.write(`start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
