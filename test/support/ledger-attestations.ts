/**
 * Attestations written straight to SQL for the tests of the ledgers kept from them (migrations 011 and 012): one
 * session, an hour in; each test names what differs (symbol, notional, session, state, expiry, account).
 */
import type { Database } from '../../db/pool';
import { storeAttestationsAndCommit, type NewAttestation } from '../../db/queries/attestations';

/** When the session of these attestations started, and the `now` they are read at. */
export const LEDGER_SESSION_STARTED = 1_790_000_000_000;
export const LEDGER_NOW = LEDGER_SESSION_STARTED + 3_600_000;

let next = 1n;

/** An attestation of `notional` in `symbol` for `accountId` (a buy of one token, expiring a minute after now), with a new id. */
export function ledgerAttestation(accountId: string, symbol: string, notional: string, overrides: Partial<NewAttestation> = {}): NewAttestation {
  return {
    attestationId: String((next += 1n)), accountId, userId: `0x${'11'.repeat(32)}`, symbol, chain: 'ethereum-1', side: 'buy', duration: 'short',
    tokenAmount: '1', price: notional, notional, session: 'regular', sessionStartedAt: LEDGER_SESSION_STARTED, createdAt: LEDGER_NOW - 1_000,
    expiresAt: LEDGER_NOW + 60_000, userAddress: null, assetAddress: `0x${'22'.repeat(20)}`, signature: 's', additionalData: 'a',
    response: {}, idempotencyKey: null, requestHash: 'h', ...overrides,
  };
}

/** Stores a `ledgerAttestation`; answers its id. */
export async function storeLedgerAttestation(db: Database, accountId: string, symbol: string, notional: string, overrides: Partial<NewAttestation> = {}): Promise<string> {
  const attestation = ledgerAttestation(accountId, symbol, notional, overrides);
  // As the API stores one: the statement that also asks for its workflow, committing the transaction it ends.
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await storeAttestationsAndCommit(client, [{ attestation }]);
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  return attestation.attestationId;
}
