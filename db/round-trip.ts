/**
 * Several statements in one round trip to PostgreSQL. The simple query protocol carries any number of statements but
 * no parameters, so values are written into the text as escaped literals; a statement that would otherwise be planned
 * on every run is prepared once per connection and run as `EXECUTE name(literal, …)`, keeping its plan.
 */
import { escapeLiteral, type PoolClient, type QueryResult } from 'pg';

export type SqlValue = string | number | null;

/** A statement prepared on each connection under `name` the first time that connection runs it. */
export interface PreparedStatement {
  name: string;
  /** The SQL with `$1`, `$2`, … placeholders; their types are inferred by the server. */
  text: string;
}

/** SQL text as written, or a prepared statement with its values. */
export type Statement = string | { prepared: PreparedStatement; values: SqlValue[] };

const NEEDS_ESCAPING = /['\\]/;

/**
 * A value written into SQL text: a string as an escaped literal, a number as itself (finite only), null as NULL.
 */
export function sqlLiteral(value: SqlValue): string {
  if (value === null) return 'NULL';
  // pg's escapeLiteral copies character by character; a string without a quote or backslash it would only enclose.
  if (typeof value === 'string') return NEEDS_ESCAPING.test(value) ? escapeLiteral(value) : `'${value}'`;
  if (!Number.isFinite(value)) throw new Error(`${value} cannot be written into SQL`);
  return String(value);
}

const preparedOn = new WeakMap<PoolClient, Set<string>>();
/** SQLSTATE invalid_sql_statement_name: an EXECUTE of a statement the connection does not have. */
const UNKNOWN_PREPARED_STATEMENT = '26000';

/** Prepares `statement` on `client`'s connection unless it already has (PREPARE outlives a rolled-back transaction). */
async function prepareOnce(client: PoolClient, statement: PreparedStatement): Promise<void> {
  let names = preparedOn.get(client);
  if (!names) preparedOn.set(client, (names = new Set()));
  if (names.has(statement.name)) return;
  await client.query(`PREPARE ${statement.name} AS ${statement.text}`);
  names.add(statement.name);
}

function sqlOf(statement: Statement): string {
  if (typeof statement === 'string') return statement;
  return `EXECUTE ${statement.prepared.name}(${statement.values.map(sqlLiteral).join(', ')})`;
}

/**
 * Runs `statements` in one round trip, in order (the first that fails stops the rest); answers each one's rows. Each
 * statement of a transaction reads in a snapshot of its own, taken when it starts: a read after a lock sees everything
 * committed before the lock was granted.
 */
export async function inOneRoundTrip(client: PoolClient, statements: Statement[]): Promise<unknown[][]> {
  for (const statement of statements) if (typeof statement !== 'string') await prepareOnce(client, statement.prepared);
  try {
    const result = (await client.query(statements.map(sqlOf).join(';\n'))) as unknown as QueryResult | QueryResult[];
    return (Array.isArray(result) ? result : [result]).map((each) => each.rows);
  } catch (error) {
    // The connection lost its prepared statements (DEALLOCATE, DISCARD ALL): the next round trip prepares them again.
    if ((error as { code?: string }).code === UNKNOWN_PREPARED_STATEMENT) preparedOn.delete(client);
    throw error;
  }
}
