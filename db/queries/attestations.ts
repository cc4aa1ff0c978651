/** Attestations as the API creates and reads them, and the usage that limits are checked against. */
import type { AttestationState } from '../../domain/attestation-state';
import type { PoolClient } from 'pg';
import type { Queryable } from '../pool';
import { currentAssetEventsSql, type AssetStatusCode } from './operator-controls';
import { inOneRoundTrip, sqlLiteral, type PreparedStatement, type SqlValue, type Statement } from '../round-trip';
import { unlistedWalletSql } from './allow-list';

export interface NewAttestation {
  attestationId: string;
  accountId: string;
  userId: string;
  symbol: string;
  chain: string;
  side: 'buy' | 'sell';
  duration: 'short' | 'long';
  tokenAmount: string;
  price: string;
  notional: string;
  session: string;
  sessionStartedAt: number;
  createdAt: number;
  expiresAt: number;
  userAddress: string | null;
  assetAddress: string;
  signature: string;
  additionalData: string;
  response: unknown;
  idempotencyKey: string | null;
  requestHash: string;
}

/** The columns an attestation is stored with, in the order of `attestationValues`. */
const ATTESTATION_COLUMNS = `attestation_id, account_id, user_id, symbol, chain, side, duration, token_amount, price, notional,
  session, session_started_at, created_at, expires_at, user_address, asset_address, signature, additional_data, response,
  idempotency_key, request_hash`;

function attestationValues(a: NewAttestation): SqlValue[] {
  return [
    a.attestationId, a.accountId, a.userId, a.symbol, a.chain, a.side, a.duration, a.tokenAmount, a.price, a.notional,
    a.session, a.sessionStartedAt, a.createdAt, a.expiresAt, a.userAddress, a.assetAddress, a.signature, a.additionalData,
    JSON.stringify(a.response), a.idempotencyKey, a.requestHash,
  ];
}

/** The setting (suffixed with the session's start) `READ_LAPSED_OFFHOURS` leaves its answer in. */
const LAPSED_SETTING = 'issuer.offhours_lapsed_';

const ATTESTATION_PLACEHOLDERS = ATTESTATION_COLUMNS.split(',').map((_, index) => `$${index + 1}`);

/**
 * The statement that stores an attestation (`$1`… in the order of `attestationValues`) and in the same statement asks
 * for its lifecycle workflow (attestation_workflow_starts); answers `stored`, the rows stored. With `exposureCheck`, a
 * condition on the `exposure` of the attestation's off-hours session (`sessionExposureSql`), it stores nothing unless
 * the condition holds.
 */
function storeAttestationSql(exposureCheck?: string): string {
  const lapsed = lapsedInBatchSql({ symbol: '$4', sessionStartedAt: '$12' });
  const source = exposureCheck ? `FROM (${sessionExposureSql({ symbol: '$4', sessionStartedAt: '$12', lapsed })}) AS exposure WHERE ${exposureCheck}` : '';
  return `WITH stored AS (
       INSERT INTO attestations (${ATTESTATION_COLUMNS}) SELECT ${ATTESTATION_PLACEHOLDERS.join(', ')} ${source}
       RETURNING attestation_id
     ), queued AS (
       INSERT INTO attestation_workflow_starts (attestation_id) SELECT attestation_id FROM stored
     )
     SELECT count(*)::int AS stored FROM stored`;
}

const STORE_ATTESTATION: PreparedStatement = { name: 'store_attestation', text: storeAttestationSql() };

/** `STORE_ATTESTATION` within the off-hours exposure caps, global `$22` and the asset's `$23`. */
const STORE_ATTESTATION_WITHIN_EXPOSURE: PreparedStatement = {
  name: 'store_attestation_within_exposure',
  text: storeAttestationSql('exposure.global + $10 <= $22 AND exposure.asset + $10 <= $23'),
};

/**
 * Locks the all-assets exposure row of the off-hours session that started at `$1` (created at zero when it has none),
 * which every change to the session's exposure writes first.
 */
const LOCK_OFFHOURS_EXPOSURE: PreparedStatement = {
  name: 'lock_offhours_exposure',
  text: `INSERT INTO offhours_exposure AS e (session_started_at, symbol, notional) VALUES ($1, '*', 0)
         ON CONFLICT (session_started_at, symbol) DO UPDATE SET notional = e.notional`,
};

/**
 * Reads once per batch what the exposure of the off-hours session that started at `$1` is less at `$2`: its outstanding
 * attestations already past their expiry, per asset and for all (`*`), as JSON in a setting local to the transaction
 * (`lapsedInBatchSql` reads it); a statement of its own after the marking (`EXPIRE_LAPSED_OFFHOURS`), so as to see it.
 * Every order of the batch is then checked against the lapse at the batch's earliest order — a little less than at its
 * own time, so never less strict — instead of each summing the lapsed rows again under the lock: a burst's quotes
 * lapsing together leave tens of thousands of them until swept, 0.25 ms a thousand.
 */
const READ_LAPSED_OFFHOURS: PreparedStatement = {
  name: 'read_lapsed_offhours',
  text: `SELECT set_config('${LAPSED_SETTING}' || $1::bigint::text, jsonb_object_agg(coalesce(symbol, '*'), coalesce(notional, 0))::text, true)
           FROM (SELECT symbol, sum(notional) AS notional FROM attestations
                  WHERE session = 'offhours' AND state = 'outstanding' AND session_started_at = $1 AND expires_at <= $2
                    AND NOT EXISTS (SELECT 1 FROM solana_nonce_accounts n WHERE n.attestation_id = attestations.attestation_id)
                  GROUP BY ROLLUP (symbol)) AS lapsed`,
};

/** At most this many lapsed attestations are marked expired per store, so that a backlog (a worker away) is taken up by degrees. */
const LAPSED_PER_STORE = 100;

/**
 * Marks expired the outstanding attestations of the off-hours session that started at `$1` that are past their expiry
 * at `$2` (those no other transaction is writing), as their workflows will once their settlement grace is over. The
 * exposure read then subtracts only those that lapsed since, instead of every one still waiting for its workflow's
 * grace (ten minutes by default: at 300 unexecuted quotes a second, 180 000 rows summed by every order under the lock).
 * Run under the session's ledger lock, each is marked once.
 */
const EXPIRE_LAPSED_OFFHOURS: PreparedStatement = {
  name: 'expire_lapsed_offhours',
  text: `UPDATE attestations SET state = 'expired', state_changed_at = expires_at
          WHERE attestation_id IN (SELECT attestation_id FROM attestations
                                    WHERE session = 'offhours' AND session_started_at = $1 AND state = 'outstanding' AND expires_at <= $2
                                      AND NOT EXISTS (SELECT 1 FROM solana_nonce_accounts n WHERE n.attestation_id = attestations.attestation_id)
                                    ORDER BY expires_at LIMIT ${LAPSED_PER_STORE} FOR UPDATE SKIP LOCKED)`,
};

/** The off-hours exposure caps (USD notional) an attestation is stored within. */
export interface ExposureCaps {
  global: string;
  asset: string;
}

/** An attestation to store; off-hours, with the exposure caps it is stored within. */
export interface AttestationToStore {
  attestation: NewAttestation;
  caps?: ExposureCaps;
}

/** Where a batch of several attestations starts within the transaction that stores them. */
const BATCH_SAVEPOINT = 'attestation_batch';

/**
 * Stores attestations in `client`'s transaction, each with the request for its lifecycle workflow, and commits it, in
 * one round trip. With caps (off-hours), the exposure ledger of each of their sessions is locked first (the oldest
 * session first), its attestations past their expiry marked expired (`EXPIRE_LAPSED_OFFHOURS`) and those left read
 * once (`READ_LAPSED_OFFHOURS`), and each such attestation, in order, is stored only if the exposure, read after the
 * lock and after the ones before it, stays within its caps: the session's orders line up on the ledger for no longer
 * than the server takes to store and commit them. Answers, per attestation, whether it was stored (the transaction
 * commits all the same). Several are stored after a savepoint: when one of them fails, `undoStoreBatch` undoes them all
 * and leaves the transaction open, with the locks it held before.
 */
export async function storeAttestationsAndCommit(client: PoolClient, batch: AttestationToStore[]): Promise<boolean[]> {
  // Each off-hours session of the batch (its start), with the earliest time one of its orders was made at.
  const earliestOrder = new Map<number, number>();
  for (const { attestation, caps } of batch) {
    if (!caps) continue;
    const started = attestation.sessionStartedAt;
    earliestOrder.set(started, Math.min(earliestOrder.get(started) ?? Infinity, attestation.createdAt));
  }
  const sessions = [...earliestOrder].sort(([a], [b]) => a - b);
  const stores = batch.map(({ attestation, caps }): Statement =>
    caps
      ? { prepared: STORE_ATTESTATION_WITHIN_EXPOSURE, values: [...attestationValues(attestation), caps.global, caps.asset] }
      : { prepared: STORE_ATTESTATION, values: attestationValues(attestation) },
  );
  const statements: Statement[] = [
    ...(batch.length > 1 ? [`SAVEPOINT ${BATCH_SAVEPOINT}`] : []),
    ...sessions.map(([started]): Statement => ({ prepared: LOCK_OFFHOURS_EXPOSURE, values: [started] })),
    ...sessions.map(([started, now]): Statement => ({ prepared: EXPIRE_LAPSED_OFFHOURS, values: [started, now] })),
    ...sessions.map(([started, now]): Statement => ({ prepared: READ_LAPSED_OFFHOURS, values: [started, now] })),
    ...stores,
    'COMMIT',
  ];
  const results = await inOneRoundTrip(client, statements);
  return results.slice(-1 - batch.length, -1).map((rows) => (rows[0] as { stored: number }).stored === 1);
}

/** Undoes a batch of several attestations that failed (`storeAttestationsAndCommit`); its transaction stays open. */
export async function undoStoreBatch(client: PoolClient): Promise<void> {
  await client.query(`ROLLBACK TO SAVEPOINT ${BATCH_SAVEPOINT}`);
}

export interface IdempotentRecord {
  requestHash: string;
  response: unknown;
}

const FIND_BY_IDEMPOTENCY_KEY_SQL = `SELECT request_hash AS "requestHash", response FROM attestations WHERE account_id = $1 AND idempotency_key = $2`;

/** The attestation an account created under an idempotency key, if any. */
export async function findByIdempotencyKey(db: Queryable, accountId: string, key: string): Promise<IdempotentRecord | undefined> {
  const { rows } = await db.query<IdempotentRecord>(FIND_BY_IDEMPOTENCY_KEY_SQL, [accountId, key]);
  return rows[0];
}

export interface StoredAttestation {
  response: Record<string, unknown>;
  state: AttestationState;
  expiresAt: number;
  executionTxHash: string | null;
  /** The block holding the execution (executing and executed). */
  executionBlockNumber: number | null;
  /** The head of the attestation's chain as its watcher last saw it (null before the first poll). */
  seenHead: number | null;
  stateChangedAt: number | null;
}

/** The columns of `StoredAttestation`, from `attestations a` (and its chain's cursor). */
export const STORED_ATTESTATION_COLUMNS = `a.response, a.state, a.expires_at AS "expiresAt", a.execution_tx_hash AS "executionTxHash",
  a.execution_block_number AS "executionBlockNumber", a.state_changed_at AS "stateChangedAt",
  (SELECT c.seen_head FROM chain_cursors c WHERE c.chain = a.chain) AS "seenHead"`;

/** One attestation of an account (another account's is not found). */
export async function findAccountAttestation(db: Queryable, accountId: string, attestationId: string): Promise<StoredAttestation | undefined> {
  const { rows } = await db.query<StoredAttestation>(
    `SELECT ${STORED_ATTESTATION_COLUMNS} FROM attestations a WHERE a.account_id = $1 AND a.attestation_id = $2::numeric`,
    [accountId, attestationId],
  );
  return rows[0];
}

export interface UserUsage {
  /** Attestations neither executed nor expired (by state and by time); one executing on chain counts until final. */
  outstandingCount: number;
  outstandingNotional: string;
  /** Notional of this session's attestations that are outstanding, executing or executed. */
  sessionNotional: string;
}

/**
 * A user's usage of an asset's limits at `now`, in the session that started at `sessionStartedAt`: the ledger kept by
 * migration 012 (outstanding and executing; per session outstanding, executing and executed) less the user's
 * outstanding attestations already past their expiry.
 */
export async function userUsage(
  db: Queryable,
  parameters: { accountId: string; symbol: string; now: number; sessionStartedAt: number },
): Promise<UserUsage> {
  const { rows } = await db.query<UserUsage>({
    name: 'user-usage',
    text: userUsageSql({ accountId: '$1', symbol: '$2', now: '$3', sessionStartedAt: '$4' }),
    values: [parameters.accountId, parameters.symbol, parameters.now, parameters.sessionStartedAt],
  });
  return rows[0]!;
}

/** The statement `userUsage` runs, written with each value's placeholder (so another statement can embed it). */
function userUsageSql(placeholders: { accountId: string; symbol: string; now: string; sessionStartedAt: string }): string {
  const { accountId, symbol, now, sessionStartedAt } = placeholders;
  return `SELECT (coalesce(open.count, 0) - lapsed.count)::int AS "outstandingCount",
              (coalesce(open.notional, 0) - lapsed.notional)::text AS "outstandingNotional",
              (coalesce(session.notional, 0) - lapsed.session_notional)::text AS "sessionNotional"
         FROM (SELECT count(*) AS count, coalesce(sum(notional), 0) AS notional,
                      coalesce(sum(notional) FILTER (WHERE session_started_at = ${sessionStartedAt}), 0) AS session_notional
                 FROM attestations
                WHERE account_id = ${accountId} AND symbol = ${symbol} AND state = 'outstanding' AND expires_at <= ${now}
                  AND NOT EXISTS (SELECT 1 FROM solana_nonce_accounts n WHERE n.attestation_id = attestations.attestation_id)) AS lapsed
         LEFT JOIN account_open_usage AS open ON open.account_id = ${accountId} AND open.symbol = ${symbol}
         LEFT JOIN account_session_usage AS session ON session.account_id = ${accountId} AND session.symbol = ${symbol}
                                                     AND session.session_started_at = ${sessionStartedAt}`;
}

export interface Exposure {
  global: string;
  asset: string;
}

/**
 * The issuer's exposure in an off-hours session: notional of all users' attestations outstanding, executing or executed
 * in it. The ledger kept by migration 011 (outstanding, executing and executed alike) less the outstanding ones already
 * past their expiry at `now`.
 */
export async function sessionExposure(db: Queryable, parameters: { symbol: string; now: number; sessionStartedAt: number }): Promise<Exposure> {
  const { rows } = await db.query<Exposure>({
    name: 'session-exposure',
    text: `SELECT global::text, asset::text FROM (${sessionExposureSql({ symbol: '$1', sessionStartedAt: '$3', lapsed: lapsedSql({ symbol: '$1', now: '$2', sessionStartedAt: '$3' }) })}) AS exposure`,
    values: [parameters.symbol, parameters.now, parameters.sessionStartedAt],
  });
  return rows[0]!;
}

/**
 * The statement `sessionExposure` runs (numeric columns `global` and `asset`), written with each value's placeholder:
 * the ledger less `lapsed`, a row of the lapsed notional for all assets (`global`) and for the asset (`asset`).
 */
function sessionExposureSql(placeholders: { symbol: string; sessionStartedAt: string; lapsed: string }): string {
  const { symbol, sessionStartedAt, lapsed } = placeholders;
  return `SELECT coalesce((SELECT notional FROM offhours_exposure WHERE session_started_at = ${sessionStartedAt} AND symbol = '*'), 0) - coalesce(lapsed.global, 0) AS global,
              coalesce((SELECT notional FROM offhours_exposure WHERE session_started_at = ${sessionStartedAt} AND symbol = ${symbol}), 0) - coalesce(lapsed.asset, 0) AS asset
         FROM (${lapsed}) AS lapsed`;
}

/** The session's outstanding attestations past their expiry at `now`, summed. */
function lapsedSql(placeholders: { symbol: string; now: string; sessionStartedAt: string }): string {
  const { symbol, now, sessionStartedAt } = placeholders;
  return `SELECT sum(notional) AS global, sum(notional) FILTER (WHERE symbol = ${symbol}) AS asset
            FROM attestations
           WHERE session = 'offhours' AND state = 'outstanding' AND session_started_at = ${sessionStartedAt} AND expires_at <= ${now}
             AND NOT EXISTS (SELECT 1 FROM solana_nonce_accounts n WHERE n.attestation_id = attestations.attestation_id)`;
}

/**
 * The same, as `READ_LAPSED_OFFHOURS` read it for the batch. Read without a default: a store whose batch did not read
 * it fails (the setting unknown, or empty after an earlier transaction) rather than check the caps against nothing.
 */
function lapsedInBatchSql(placeholders: { symbol: string; sessionStartedAt: string }): string {
  const { symbol, sessionStartedAt } = placeholders;
  return `SELECT (lapsed ->> '*')::numeric AS global, (lapsed ->> ${symbol})::numeric AS asset
            FROM (SELECT current_setting('${LAPSED_SETTING}' || ${sessionStartedAt}::bigint::text)::jsonb AS lapsed) AS batch`;
}

export interface QuoteContextRecord {
  marketPaused: boolean;
  marketPauseReason: string | null;
  /** Codes and reasons of the asset's status events active at `now`. */
  activeEvents: { code: AssetStatusCode; reason: string }[];
  tradable: boolean | null;
  maxAttestationCount: number | null;
  maxActiveNotionalValue: string | null;
  maxSessionNotionalValue: string | null;
  tokenPrice: string | null;
  priceObservedAt: number | null;
  shortSpreadBps: number | null;
  longSpreadBps: number | null;
  shortTtlSeconds: number | null;
  longTtlSeconds: number | null;
  /** The token's address on `chain`: null until the chain's contracts are deployed (Solana: the catalogue mint). */
  assetAddress: string | null;
  /** The EIP-712 verifyingContract on an EVM chain: its deployed token manager (null before deployment, and on Solana). */
  tokenManager: `0x${string}` | null;
  /** Why minting the asset is paused until its reserves are covered again (null: not paused). */
  reservesPauseReason: string | null;
  /** Why an operator paused the chain (null: not paused). */
  chainPauseReason: string | null;
}

/**
 * Everything a quote for one asset needs, in one round trip: the market pause, the asset's active status
 * events, its limits for the session, its latest price, its pricing, its address on the chain, the chain's
 * token manager and operator pause, and a pause of its minting for reserves.
 */
export async function quoteContext(
  db: Queryable,
  parameters: { symbol: string; session: string; chain: string; now: number },
): Promise<QuoteContextRecord> {
  const { rows } = await db.query<QuoteContextRecord>({
    name: 'quote-context',
    text: quoteContextSql({ symbol: '$1', session: '$2', chain: '$3', now: '$4' }),
    values: [parameters.symbol, parameters.session, parameters.chain, parameters.now],
  });
  return rows[0]!;
}

/** The statement `quoteContext` runs, written with each value's placeholder (so another statement can embed it). */
function quoteContextSql(placeholders: { symbol: string; session: string; chain: string; now: string }): string {
  const { symbol, session, chain, now } = placeholders;
  return `SELECT m.paused AS "marketPaused", m.reason AS "marketPauseReason",
              coalesce((SELECT json_agg(json_build_object('code', e.code, 'reason', e.reason) ORDER BY e.starts_at)
                          FROM ${currentAssetEventsSql(now)} AS e
                         WHERE e.symbol = ${symbol} AND e.starts_at <= ${now}), '[]') AS "activeEvents",
              l.tradable, l.max_attestation_count AS "maxAttestationCount",
              l.max_active_notional_value::text AS "maxActiveNotionalValue", l.max_session_notional_value::text AS "maxSessionNotionalValue",
              p.token_price::text AS "tokenPrice", p.observed_at AS "priceObservedAt",
              r.short_spread_bps AS "shortSpreadBps", r.long_spread_bps AS "longSpreadBps",
              r.short_ttl_seconds AS "shortTtlSeconds", r.long_ttl_seconds AS "longTtlSeconds",
              a.address AS "assetAddress", d.token_manager AS "tokenManager", rp.reason AS "reservesPauseReason",
              cp.reason AS "chainPauseReason"
         FROM market_state m
         LEFT JOIN session_limits l ON l.symbol = ${symbol} AND l.session = ${session}
         LEFT JOIN latest_prices p ON p.symbol = ${symbol}
         LEFT JOIN asset_pricing r ON r.symbol = ${symbol}
         LEFT JOIN asset_addresses a ON a.symbol = ${symbol} AND a.network_chain_id = ${chain}
         LEFT JOIN chain_deployments d ON d.chain = ${chain}
         LEFT JOIN reserve_pauses rp ON rp.symbol = ${symbol}
         LEFT JOIN chain_pauses cp ON cp.chain = ${chain}`;
}

const QUOTE_CONTEXT_WITH_USAGE: PreparedStatement = {
  name: 'quote_context_with_usage',
  text: `SELECT * FROM (${quoteContextSql({ symbol: '$1', session: '$2', chain: '$3', now: '$4' })}) AS context
           CROSS JOIN (${userUsageSql({ accountId: '$5', symbol: '$1', now: '$4', sessionStartedAt: '$6' })}) AS usage
           CROSS JOIN (${unlistedWalletSql({ accountId: '$5', chain: '$3', userAddress: '$7' })}) AS wallet`,
};

const FIND_BY_IDEMPOTENCY_KEY: PreparedStatement = { name: 'find_by_idempotency_key', text: FIND_BY_IDEMPOTENCY_KEY_SQL };

/**
 * For the rest of an order's transaction, its prepared statements run on the plan made once per connection. Left to
 * choose, PostgreSQL plans the quote context anew on every run once autovacuum has analysed the attestations table (it
 * then judges a custom plan cheaper): in the benchmark, from the table's first auto-analyze on, PostgreSQL spent some
 * 45 % more CPU per attestation, and the floor fell from 1,300 to 1,050 req/s.
 */
const KEEP_GENERIC_PLANS = 'SET LOCAL plan_cache_mode = force_generic_plan';

export interface OrderRead {
  /**
   * The order's quote context (`quoteContext`) with its user's usage of the asset's limits (`userUsage`) and the
   * first wallet that could use its attestation without being on the account's allow-list (`unlistedWalletSql`).
   */
  context: QuoteContextRecord & UserUsage & { unlistedWallet: string | null };
  /** The attestation the account created with the order's idempotency key, if it has one. */
  earlier: IdempotentRecord | undefined;
}

/**
 * Opens an order's transaction (its statements on their generic plans, `KEEP_GENERIC_PLANS`) and, in the same round
 * trip, takes the advisory lock `lockKey` (held until the transaction ends) and reads under it what the order is
 * checked against: read after the lock, the usage is the one the order's limits are checked against, and an
 * attestation committed with the same idempotency key is seen.
 */
export async function beginOrder(
  client: PoolClient,
  parameters: {
    lockKey: string;
    accountId: string;
    symbol: string;
    session: string;
    sessionStartedAt: number;
    chain: string;
    now: number;
    /** The wallet the request names (Solana), canonical; undefined when it names none. */
    userAddress?: string;
    idempotencyKey?: string;
  },
): Promise<OrderRead> {
  const { lockKey, accountId, symbol, session, sessionStartedAt, chain, now, userAddress, idempotencyKey } = parameters;
  const statements: Statement[] = ['BEGIN', KEEP_GENERIC_PLANS, `SELECT pg_advisory_xact_lock(hashtext(${sqlLiteral(lockKey)}))`];
  if (idempotencyKey) statements.push({ prepared: FIND_BY_IDEMPOTENCY_KEY, values: [accountId, idempotencyKey] });
  statements.push({ prepared: QUOTE_CONTEXT_WITH_USAGE, values: [symbol, session, chain, now, accountId, sessionStartedAt, userAddress ?? null] });
  const results = await inOneRoundTrip(client, statements);
  const context = results.at(-1)![0] as OrderRead['context'];
  const earlier = idempotencyKey ? (results.at(-2)![0] as IdempotentRecord | undefined) : undefined;
  return { context, earlier };
}

/** Attestations counting as outstanding at `now` (not executed, not expired, by state and time) per chain: how many, and their USD notional as a decimal string. */
export async function outstandingAttestationTotals(db: Queryable, now: number): Promise<{ chain: string; count: number; notional: string }[]> {
  const { rows } = await db.query<{ chain: string; count: number; notional: string }>(
    `SELECT chain, count(*)::int AS count, sum(notional)::text AS notional
       FROM attestations WHERE state = 'executing' OR (state = 'outstanding' AND expires_at > $1) GROUP BY chain`,
    [now],
  );
  return rows;
}
