/**
 * The database part: PostgreSQL — embedded under DATA_DIR/postgres unless DATABASE_URL names one — and a pool on it;
 * and the migrations and catalogue seed every database the product runs on gets first (`prepareDatabase`).
 */
import type { Config } from '../config';
import type { Logger } from '../config/logger';
import { startEmbeddedPostgres } from '../db/embedded';
import { migrate } from '../db/migrate';
import { createPool, type Database } from '../db/pool';
import { seedCatalogue } from '../db/seed';
import { CATALOGUE } from '../domain/catalogue';
import { Parts, type Part } from './parts';

export interface RunningDatabase extends Part {
  url: string;
  db: Database;
}

export async function startDatabase(
  settings: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'EMBEDDED_POSTGRES_PORT'>,
  options: { logger: Logger; poolSize?: number },
): Promise<RunningDatabase> {
  const { logger } = options;
  const parts = new Parts(logger);
  try {
    let url = settings.DATABASE_URL;
    if (!url) {
      logger.info({ dataDir: settings.DATA_DIR, port: settings.EMBEDDED_POSTGRES_PORT }, 'starting embedded PostgreSQL');
      const embedded = await startEmbeddedPostgres({
        dataDir: settings.DATA_DIR,
        port: settings.EMBEDDED_POSTGRES_PORT,
        onLog: (line) => logger.info(line),
        // Nothing starts it again: the product answers 503 until a server runs on its data and port.
        onUnexpectedExit: (how) =>
          logger.error({ ...how, log: `${settings.DATA_DIR}/postgres.log` }, 'embedded PostgreSQL exited unexpectedly: the product answers 503 until it runs again (restart npm start)'),
      });
      parts.add({ name: 'PostgreSQL', stop: () => embedded.stop(), deadlineMs: 20_000, kill: () => embedded.kill() });
      url = embedded.url;
    }
    const db = createPool(url, options.poolSize ?? 20, (error) => logger.warn({ err: error }, 'an idle database connection failed'));
    parts.add({ name: 'database pool', stop: () => db.end(), deadlineMs: 5_000 });
    return { ...parts.asPart('database'), url, db };
  } catch (error) {
    await parts.stopped();
    throw error;
  }
}

/** The advisory lock under which a process prepares the database: processes starting together take turns. */
const PREPARE_LOCK_KEY = 7_411_009;

/**
 * Migrates the database and seeds the catalogue (both idempotent), under an advisory lock so that the processes of a
 * deployment starting at once take turns; `now` dates the seeded shares-multiplier history.
 */
export async function prepareDatabase(db: Database, options: { now: number; logger?: Logger }): Promise<void> {
  const lock = await db.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [PREPARE_LOCK_KEY]);
    const applied = await migrate(db, { onProgress: (message) => options.logger?.info(message) });
    options.logger?.info({ applied: applied.length }, 'database schema up to date');
    await seedCatalogue(db, options.now);
    options.logger?.info({ assets: CATALOGUE.length }, 'catalogue seeded');
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [PREPARE_LOCK_KEY]).catch(() => undefined);
    lock.release();
  }
}
