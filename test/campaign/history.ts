/**
 * Stored histories for the campaign checker's tests: rows written as the API, the watchers and the partner flow write
 * them, so a test can build a consistent history and then break it on purpose, as a bug would.
 */
import type { Queryable } from '../../db/pool';

export const ACCOUNT = 'acct_campaign';
export const USER = `0x${'c'.repeat(64)}`;
export const TOKEN = `0x${'a1'.repeat(20)}`;
export const MINTED_FROM = '0x0000000000000000000000000000000000000000';
/** The instant the histories start at (ms). */
export const T0 = 1_790_000_000_000;
const E18 = 10n ** 18n;

/** A 32-byte hash for a test transaction, by its number. */
export const tx = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

export interface AttestationRow {
  id: number;
  symbol?: string;
  chain?: string;
  side?: 'buy' | 'sell';
  tokens?: string;
  price?: string;
  session?: string;
  sessionStartedAt?: number;
  createdAt?: number;
  expiresAt?: number;
  state?: 'outstanding' | 'executing' | 'executed' | 'expired';
  txHash?: string;
  stateChangedAt?: number;
  accountId?: string;
}

/** Empties what a history is made of and adds the account and the token's address on ethereum-1. */
export async function resetHistory(db: Queryable): Promise<void> {
  await db.query(`TRUNCATE attestations, trade_executions, hedge_obligations, hedge_orders, hedge_batches, hedge_carry, chain_transactions,
                           token_transfers, partner_requests, redemptions, reserve_snapshots, offhours_exposure, account_open_usage,
                           account_session_usage CASCADE`);
  await db.query(`INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, 'campaign'), ($1 || '_2', $3, 'campaign 2') ON CONFLICT DO NOTHING`, [
    ACCOUNT,
    USER,
    `0x${'d'.repeat(64)}`,
  ]);
  await db.query(`INSERT INTO asset_addresses (symbol, network_chain_id, address, decimals) VALUES ('AAPLon', 'ethereum-1', $1, 18) ON CONFLICT DO NOTHING`, [TOKEN]);
}

/** An attestation as the API stores it (notional = tokens × price). */
export async function insertAttestation(db: Queryable, row: AttestationRow): Promise<void> {
  const tokens = row.tokens ?? '2';
  const price = row.price ?? '100';
  const createdAt = row.createdAt ?? T0 + row.id * 1_000;
  await db.query(
    `INSERT INTO attestations (attestation_id, account_id, user_id, symbol, chain, side, duration, token_amount, price, notional, session,
                               session_started_at, created_at, expires_at, state, execution_tx_hash, state_changed_at, asset_address,
                               signature, additional_data, response)
     VALUES ($1, $2, $3, $4, $5, $6, 'short', $7, $8, $7::numeric * $8::numeric, $9, $10, $11, $12, $13, $14, $15, $16, '0x', '0x', '{}')`,
    [
      row.id,
      row.accountId ?? ACCOUNT,
      USER,
      row.symbol ?? 'AAPLon',
      row.chain ?? 'ethereum-1',
      row.side ?? 'buy',
      tokens,
      price,
      row.session ?? 'regular',
      row.sessionStartedAt ?? T0,
      createdAt,
      row.expiresAt ?? createdAt + 60_000,
      row.state ?? 'outstanding',
      row.txHash ?? null,
      row.stateChangedAt ?? null,
      TOKEN,
    ],
  );
}

export interface ExecutionRow {
  attestationId: number;
  txHash: string;
  logIndex?: number;
  chain?: string;
  side?: 'buy' | 'sell';
  tokens?: string;
  price?: string;
  executedAt: number;
  status?: 'seen' | 'final' | 'orphaned';
  blockNumber?: number;
}

/** An execution as the chain watcher records it (price and quantity in 18 decimals). */
export async function insertExecution(db: Queryable, row: ExecutionRow): Promise<void> {
  const scaled = (value: string) => ((BigInt(Math.round(Number(value) * 1e6)) * E18) / 1_000_000n).toString();
  await db.query(
    `INSERT INTO trade_executions (chain, tx_hash, log_index, block_number, block_hash, execution_id, attestation_id, user_id, side, asset,
                                   price, quantity, executed_at, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      row.chain ?? 'ethereum-1',
      row.txHash,
      row.logIndex ?? 0,
      row.blockNumber ?? 10,
      tx(1_000_000 + (row.blockNumber ?? 10)),
      row.attestationId,
      row.attestationId,
      USER,
      row.side ?? 'buy',
      TOKEN,
      scaled(row.price ?? '100'),
      scaled(row.tokens ?? '2'),
      row.executedAt,
      row.status ?? 'final',
    ],
  );
}

/** The hedge obligation the watcher writes with a final execution. */
export async function insertObligation(db: Queryable, row: { attestationId: number; txHash: string; logIndex?: number; side?: string; tokens?: string }): Promise<void> {
  const tokens = row.tokens ?? '2';
  await db.query(
    `INSERT INTO hedge_obligations (chain, tx_hash, log_index, block_hash, attestation_id, symbol, underlying, side, tokens, shares_multiplier, shares,
                                    attested_price, attested_share_price, executed_at)
     VALUES ('ethereum-1', $1, $2, $3, $4, 'AAPLon', 'AAPL', $5, $6, 1, $6, 100, 100, $7)`,
    [row.txHash, row.logIndex ?? 0, tx(1_000_010), row.attestationId, row.side ?? 'buy', tokens, T0],
  );
}

/** A Transfer of the stock token recorded by the watcher (`from` the zero address: a mint). */
export async function insertTokenTransfer(db: Queryable, row: { txHash: string; from?: string; amount?: string; status?: string }): Promise<void> {
  await db.query(
    `INSERT INTO token_transfers (chain, block_hash, tx_hash, log_index, block_number, token, sender, recipient, amount, status)
     VALUES ('ethereum-1', $1, $2, 1, 10, $3, $4, $5, $6, $7)`,
    [tx(1_000_010), row.txHash, TOKEN, row.from ?? MINTED_FROM, `0x${'b2'.repeat(20)}`, row.amount ?? (2n * E18).toString(), row.status ?? 'final'],
  );
}

/** One buy executed and hedged, one sell executed and hedged, one expired: a consistent history. */
export async function insertConsistentHistory(db: Queryable): Promise<void> {
  await insertAttestation(db, { id: 1, state: 'executed', txHash: tx(1), stateChangedAt: T0 + 30_000 });
  await insertExecution(db, { attestationId: 1, txHash: tx(1), executedAt: T0 + 30_000 });
  await insertObligation(db, { attestationId: 1, txHash: tx(1) });
  await insertTokenTransfer(db, { txHash: tx(1) });
  await insertAttestation(db, { id: 2, side: 'sell', state: 'executed', txHash: tx(2), stateChangedAt: T0 + 40_000 });
  await insertExecution(db, { attestationId: 2, txHash: tx(2), side: 'sell', executedAt: T0 + 40_000 });
  await insertObligation(db, { attestationId: 2, txHash: tx(2), side: 'sell' });
  await insertAttestation(db, { id: 3, state: 'expired', stateChangedAt: T0 + 63_000 });
}
