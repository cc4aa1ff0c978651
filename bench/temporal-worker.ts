/**
 * Child process of the attestation benchmark: the in-memory Temporal service and the product's worker part
 * (worker/start-worker.ts: its workflows and activities on BENCH_DATABASE_URL, and the attestation workflow starts it
 * drains from the outbox), as production runs the worker apart from the API.
 */
import pino from 'pino';
import { createPool } from '../db/pool';
import { defaultConfig } from '../harness/settings';
import { startTemporal } from '../start/temporal';
import { startWorker } from '../worker/start-worker';

async function main(): Promise<void> {
  // SIGTERM ends the process at once: the benchmark is done with it (a graceful drain could outlive its database).
  process.on('SIGTERM', () => process.exit(0));
  const logger = pino({ level: 'error' });
  const config = defaultConfig();
  const db = createPool(process.env.BENCH_DATABASE_URL!, 10);
  const temporal = await startTemporal(config, { logger, inMemory: true });
  await startWorker({ config, temporal, db, logger });
  process.send!({ address: temporal.address });
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
