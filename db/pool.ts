/** PostgreSQL connection pool, and the one place that decides how `pg` maps column types. */
import { Pool, types } from 'pg';

// bigint columns (epoch ms, counts) fit in a JS number; numeric stays a decimal string.
types.setTypeParser(types.builtins.INT8, (value) => Number(value));

export type Database = Pool;

export function createPool(connectionString: string, max = 10): Database {
  return new Pool({ connectionString, max });
}

/** Anything that runs a query: the pool, or one client inside a transaction. */
export type Queryable = Pick<Pool, 'query'>;
