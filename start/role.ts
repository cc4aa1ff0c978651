/**
 * A production role on its own (`npm run api`, `npm run worker`, `npm run feed`): what every role shares — its slice
 * of the configuration with DATABASE_URL and TEMPORAL_ADDRESS required (a role starts no embedded server), the
 * logger, a pool on the database migrated and seeded under its lock, and the metrics on METRICS_PORT — then the
 * role's own parts, until SIGINT/SIGTERM (or the role ending by itself: a worker whose SDK runtime stopped it), when
 * every part stops in reverse order within its deadline and the process exits. A role creates no API key, wallet,
 * signer key or sandbox.
 */
import type { ChainContexts } from '../chains/context';
import { configuredChains, type ChainSettings, type RunningChains } from './chains';
import { loadConfig, type Config, type ConfigVariable } from '../config';
import { exitWithUsageOnHelp } from '../config/cli';
import { createLogger, exitAfterLogs, type Logger } from '../config/logger';
import { createPool, type Database } from '../db/pool';
import { createProcessMetrics } from '../metrics/process-metrics';
import { startMetricsServer } from '../metrics/server';
import { prepareDatabase } from './database';
import { Parts } from './parts';

/** What every role reads besides its own variables. */
const ROLE_VARIABLES = ['HOST', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE', 'METRICS_PORT', 'LOG_LEVEL', 'LOG_FORMAT'] as const;
type RoleVariable = (typeof ROLE_VARIABLES)[number];

const POOL_SIZE = 20;
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** The whole shutdown's deadline (as npm start's): past it the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 60_000;

export interface RoleContext<K extends ConfigVariable> {
  config: Pick<Config, K | RoleVariable> & { DATABASE_URL: string; TEMPORAL_ADDRESS: string };
  logger: Logger;
  db: Database;
  parts: Parts;
  /**
   * The chains RPC_URL_<CHAIN> names (start/chains.ts), started as one of `parts` and told to the metrics (each
   * watcher's lag behind its chain's head); none configured: undefined.
   */
  startChains(settings: Omit<ChainSettings, 'DATA_DIR'>): Promise<RunningChains | undefined>;
  /** Where the Temporal SDK runtime of this process exports its metrics (a worker), passed on at /metrics. */
  exportTemporalMetrics(url: string): void;
}

export interface RoleDefinition<K extends ConfigVariable> {
  /** `api`, `worker`, `feed`. */
  name: string;
  /** What `npm run <name> -- --help` prints. */
  usage: string;
  variables: readonly K[];
  /** Starts the role's parts (adding each to `parts`); `ended` settles if the role ends by itself. */
  start(context: RoleContext<K>): Promise<{ ended?: Promise<void> }>;
}

function required<T>(value: T | undefined, variable: string, role: string, why: string): T {
  if (value === undefined) throw new Error(`invalid configuration: ${variable}: required by npm run ${role} (${why})`);
  return value;
}

/** Runs the role as this process's whole life: exits 0 after a clean stop, 1 when the start or the role failed. */
export function runRole<K extends ConfigVariable>(role: RoleDefinition<K>): void {
  exitWithUsageOnHelp(role.usage);
  let logger: Logger | undefined;
  const parts: { current?: Parts } = {};
  let stopping: Promise<void> | undefined;
  const stop = (reason: string, code: number): Promise<void> => {
    stopping ??= (async () => {
      logger?.info({ reason }, 'stopping');
      const started = Date.now();
      setTimeout(() => {
        logger?.error({ deadlineMs: SHUTDOWN_DEADLINE_MS }, 'shutdown past its deadline: exiting');
        exitAfterLogs(logger, 1);
      }, SHUTDOWN_DEADLINE_MS).unref();
      await parts.current?.stopped();
      logger?.info({ reason, ms: Date.now() - started }, 'stopped');
      exitAfterLogs(logger, code);
    })();
    return stopping;
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => void stop(signal, 0));

  void (async () => {
    const config = loadConfig([...ROLE_VARIABLES, ...role.variables]);
    const log = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
    logger = log;
    const databaseUrl = required(config.DATABASE_URL, 'DATABASE_URL', role.name, 'a role starts no embedded PostgreSQL');
    const temporalAddress = required(config.TEMPORAL_ADDRESS, 'TEMPORAL_ADDRESS', role.name, 'a role starts no Temporal service');
    const roleParts = new Parts(log);
    parts.current = roleParts;
    const db = createPool(databaseUrl, POOL_SIZE, (error) => logger?.warn({ err: error }, 'an idle database connection failed'));
    parts.current.add({ name: 'database pool', stop: () => db.end(), deadlineMs: 5_000 });
    await prepareDatabase(db, { now: Date.now(), logger });

    let chains: ChainContexts | undefined;
    let temporalMetricsUrl: string | undefined;
    // The Solana watcher's lag is read where the role reaches the ledger (SOLANA_RPC_URL among its variables).
    const solanaRpcUrl = (config as Partial<Pick<Config, 'SOLANA_RPC_URL'>>).SOLANA_RPC_URL;
    const registry = createProcessMetrics({ role: role.name, db, poolMax: POOL_SIZE, chains: () => chains, solanaRpcUrl: () => solanaRpcUrl });
    const metrics = await startMetricsServer({
      host: config.HOST,
      port: config.METRICS_PORT,
      registry,
      temporalMetricsUrl: () => temporalMetricsUrl,
      logger,
    });
    parts.current.add(metrics);

    const { ended } = await role.start({
      config: { ...config, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress },
      logger,
      db,
      parts: parts.current,
      startChains: async (settings) => {
        const running = await configuredChains(settings, log);
        if (running) {
          roleParts.add(running);
          chains = running.chains;
        }
        return running;
      },
      exportTemporalMetrics: (url) => {
        temporalMetricsUrl = url;
      },
    });
    logger.info({ role: role.name, metrics: metrics.url }, `${role.name} running`);
    if (ended) {
      await ended;
      await stop('the role ended by itself', 0);
    }
  })().catch(async (error: unknown) => {
    process.stderr.write(`npm run ${role.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await stop('failed', 1);
  });
}
