/** PostgreSQL connection pool, and the one place that decides how `pg` maps column types. */
import { Pool, types } from 'pg';

// bigint columns (epoch ms, counts) fit in a JS number; numeric stays a decimal string.
types.setTypeParser(types.builtins.INT8, (value) => Number(value));

export type Database = Pool;

/**
 * A pool of at most `max` connections. An idle connection that fails (the server restarting or shutting
 * down) is dropped by the pool and reported to `onIdleError` instead of crashing the process.
 */
export function createPool(connectionString: string, max = 10, onIdleError: (error: Error) => void = () => undefined): Database {
  const pool = new Pool({ connectionString, max });
  pool.on('error', onIdleError);
  return pool;
}

/** Anything that runs a query: the pool, or one client inside a transaction. */
export type Queryable = Pick<Pool, 'query'>;
