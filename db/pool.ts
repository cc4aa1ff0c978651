/** PostgreSQL connection pool, and the one place that decides how `pg` maps column types. */
import { once } from 'node:events';
import pg, { types, type PoolClient } from 'pg';

// bigint columns (epoch ms, counts) fit in a JS number; numeric stays a decimal string.
types.setTypeParser(types.builtins.INT8, (value) => Number(value));

/**
 * pg's pool, ended once its connections are closed. pg's own `end()` resolves as soon as it has asked them to close,
 * so a server stopped right after (`npm start` stopping its embedded PostgreSQL) still had their sessions and ended
 * them itself: each came back as a failed idle connection.
 */
class ClosingPool extends pg.Pool {
  private readonly open = new Set<pg.PoolClient>();

  constructor(config: pg.PoolConfig) {
    super(config);
    guardConnections(this);
    this.on('connect', (client) => this.open.add(client));
    this.on('remove', (client) => this.open.delete(client));
  }

  override end(): Promise<void>;
  override end(callback: () => void): void;
  override end(callback?: () => void): Promise<void> | void {
    const ended = (async () => {
      await super.end();
      while (this.open.size > 0) await once(this, 'remove');
    })();
    if (!callback) return ended;
    void ended.then(callback, callback);
  }
}

export type Database = pg.Pool;

/**
 * Gives every connection `pool` opens an 'error' listener for its whole life. pg's pool listens to a client only while
 * it is idle, so one that failed while checked out — the server killed or restarted under a transaction between two
 * statements, an advisory lock held, a batch being stored — emitted 'error' with no listener, which ends the process.
 * The failure is not lost: every query the holder makes on it rejects (pg marks it not queryable), and `release()`
 * then drops it from the pool; an idle one is still reported through the pool's own 'error' event.
 */
export function guardConnections(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
}

/**
 * A pool of at most `max` connections. An idle connection that fails (the server restarting or shutting
 * down) is dropped by the pool and reported to `onIdleError` instead of crashing the process. `end()` resolves once
 * every connection is closed.
 */
export function createPool(connectionString: string, max = 10, onIdleError: (error: Error) => void = () => undefined): Database {
  const pool = new ClosingPool({ connectionString, max });
  pool.on('error', (error: Error & { client?: unknown }) => {
    // pg hangs the client on the error; a logger given it would write out the whole connection.
    delete error.client;
    onIdleError(error);
  });
  return pool;
}

/** SQLSTATE classes and codes that mean the server is gone or refusing connections, not that a query is wrong. */
const UNREACHABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNREACHABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND']);

/**
 * Whether `error` says the database cannot be reached (refused, reset, shut down, starting up, out of connection
 * slots, its Unix socket gone while the server restarts), as opposed to a failing query. Looks through `cause`
 * chains and aggregate errors.
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  // Duck-typed rather than `instanceof Error`: errors from node's own sockets may come from another realm.
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, syscall, message, errors, cause } = error as { code?: unknown; syscall?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string' && (UNREACHABLE_NODE_CODES.has(code) || UNREACHABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
  // A server that stops removes its socket file (the embedded one listens on a socket), so a connect finds none.
  if (code === 'ENOENT' && syscall === 'connect') return true;
  if (typeof message === 'string' && /^Connection terminated|^Client has encountered a connection error|timeout exceeded when trying to connect/.test(message)) {
    return true;
  }
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnreachable(inner, depth + 1))) return true;
  return isDatabaseUnreachable(cause, depth + 1);
}

/** Anything that runs a query: the pool, or one client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Runs `work` in a transaction on one client of the pool: committed when it resolves, rolled back when it throws
 * (the error is rethrown), the client released either way. `snapshot`: a read-only transaction whose every statement
 * sees the database as its first one did (REPEATABLE READ), for reads that must agree with each other.
 */
export async function inTransaction<T>(db: Database, work: (client: PoolClient) => Promise<T>, options: { snapshot?: boolean } = {}): Promise<T> {
  const client = await db.connect();
  try {
    await client.query(options.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
