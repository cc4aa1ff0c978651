/**
 * An account's attestations, newest first, filtered by state, symbol and creation time, one page at a time.
 * The state is the one clients see: an `outstanding` attestation past its expiry is `expired` even before its
 * workflow records it.
 */
import type { Queryable } from '../pool';
import { STORED_ATTESTATION_COLUMNS, type StoredAttestation } from './attestations';

export type VisibleState = 'outstanding' | 'executing' | 'executed' | 'expired';

export interface AttestationListFilter {
  accountId: string;
  now: number;
  state?: VisibleState;
  symbol?: string;
  /** Created at or after (epoch ms). */
  createdAfter?: number;
  /** Created before (epoch ms). */
  createdBefore?: number;
  /** Continue after this (created_at, attestation_id), exclusive. */
  after?: { createdAt: number; attestationId: string };
  limit: number;
}

export interface ListedAttestation extends StoredAttestation {
  attestationId: string;
  createdAt: number;
}

/** The condition of a state that depends on the time, given the placeholder of now. */
const STATE_CONDITION: Record<Exclude<VisibleState, 'executed' | 'executing'>, (now: string) => string> = {
  outstanding: (now) => `state = 'outstanding' AND expires_at > ${now}`,
  expired: (now) => `(state = 'expired' OR (state = 'outstanding' AND expires_at <= ${now}))`,
};

/** One page (`limit` rows) of the filter's attestations, newest first. */
export async function listAccountAttestations(db: Queryable, filter: AttestationListFilter): Promise<ListedAttestation[]> {
  const conditions = ['account_id = $1'];
  const values: unknown[] = [filter.accountId];
  const add = (condition: (index: number) => string, value: unknown): void => {
    values.push(value);
    conditions.push(condition(values.length));
  };
  const { state } = filter;
  if (state === 'executed' || state === 'executing') conditions.push(`state = '${state}'`);
  else if (state) add((i) => STATE_CONDITION[state](`$${i}::bigint`), filter.now);
  if (filter.symbol !== undefined) add((i) => `symbol = $${i}`, filter.symbol);
  if (filter.createdAfter !== undefined) add((i) => `created_at >= $${i}`, filter.createdAfter);
  if (filter.createdBefore !== undefined) add((i) => `created_at < $${i}`, filter.createdBefore);
  if (filter.after) {
    values.push(filter.after.createdAt, filter.after.attestationId);
    conditions.push(`(created_at, attestation_id) < ($${values.length - 1}::bigint, $${values.length}::numeric)`);
  }
  values.push(filter.limit);
  const { rows } = await db.query<ListedAttestation>(
    `SELECT a.attestation_id::text AS "attestationId", a.created_at AS "createdAt", ${STORED_ATTESTATION_COLUMNS}
       FROM attestations a
      WHERE ${conditions.join(' AND ')}
      ORDER BY created_at DESC, attestation_id DESC
      LIMIT $${values.length}`,
    values,
  );
  return rows;
}
