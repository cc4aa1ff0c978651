/**
 * The on-chain half in SQL: contracts deployed per chain, each watcher's cursor, and the redemptions as their
 * workflows read them. What the watchers record per log, block and stage is in `chain-watcher.ts`.
 */
import type { Queryable } from '../pool';

export interface ChainDeploymentRecord {
  chain: string;
  chainId: number;
  tokenManager: `0x${string}`;
  issuer: `0x${string}`;
  registry: `0x${string}`;
  stablecoin: `0x${string}`;
  deployer: `0x${string}`;
  deployedBlock: number;
}

const DEPLOYMENT_COLUMNS = `chain, chain_id AS "chainId", token_manager AS "tokenManager", issuer, registry, stablecoin, deployer,
  deployed_block AS "deployedBlock"`;

export async function listChainDeployments(db: Queryable): Promise<ChainDeploymentRecord[]> {
  const { rows } = await db.query<ChainDeploymentRecord>(`SELECT ${DEPLOYMENT_COLUMNS} FROM chain_deployments ORDER BY chain`);
  return rows;
}

export async function findChainDeployment(db: Queryable, chain: string): Promise<ChainDeploymentRecord | undefined> {
  const { rows } = await db.query<ChainDeploymentRecord>(`SELECT ${DEPLOYMENT_COLUMNS} FROM chain_deployments WHERE chain = $1`, [chain]);
  return rows[0];
}

/**
 * Records a deployment and its token addresses in one statement, replacing an earlier deployment of the chain
 * (whose chain state is gone): the watcher's cursor restarts at the deployment block, and the wallets registered
 * in the old identity registry are to be registered again in the new one (their workflows are started by the
 * worker's recovery). The block hashes the watcher kept belong to the lost chain: dropped.
 */
export async function recordChainDeployment(
  db: Queryable,
  deployment: ChainDeploymentRecord,
  tokens: Record<string, `0x${string}`>,
): Promise<void> {
  const symbols = Object.keys(tokens);
  await db.query(
    `WITH deployment AS (
       INSERT INTO chain_deployments (chain, chain_id, token_manager, issuer, registry, stablecoin, deployer, deployed_block)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (chain) DO UPDATE SET chain_id = EXCLUDED.chain_id, token_manager = EXCLUDED.token_manager, issuer = EXCLUDED.issuer,
         registry = EXCLUDED.registry, stablecoin = EXCLUDED.stablecoin, deployer = EXCLUDED.deployer,
         deployed_block = EXCLUDED.deployed_block, deployed_at = now()
       RETURNING chain
     ), cursor AS (
       INSERT INTO chain_cursors (chain, next_block) SELECT chain, $8 FROM deployment
       ON CONFLICT (chain) DO UPDATE SET next_block = EXCLUDED.next_block, seen_head = NULL, seen_head_at = NULL, final_block = NULL,
         status = 'ok', last_error = NULL, last_error_at = NULL, updated_at = now()
     ), blocks AS (
       DELETE FROM chain_blocks WHERE chain = $1
     ), wallets AS (
       UPDATE account_wallets
          SET state = CASE WHEN state = 'unregistering' THEN 'unregistered' ELSE 'registering' END, tx_hash = NULL, error = NULL, updated_at = now()
        WHERE chain = $1 AND state IN ('registering', 'registered', 'failed', 'unregistering')
     )
     INSERT INTO asset_addresses (symbol, network_chain_id, address, decimals)
     SELECT symbol, $1, address, 18 FROM unnest($9::text[], $10::text[]) AS t(symbol, address)
     WHERE EXISTS (SELECT 1 FROM assets a WHERE a.symbol = t.symbol)
     ON CONFLICT (symbol, network_chain_id) DO UPDATE SET address = EXCLUDED.address, decimals = EXCLUDED.decimals`,
    [
      deployment.chain,
      deployment.chainId,
      deployment.tokenManager,
      deployment.issuer,
      deployment.registry,
      deployment.stablecoin,
      deployment.deployer,
      deployment.deployedBlock,
      symbols,
      symbols.map((symbol) => tokens[symbol]),
    ],
  );
}

/** The EVM token addresses of a chain, by symbol. */
export async function chainTokenAddresses(db: Queryable, chain: string): Promise<Record<string, `0x${string}`>> {
  const { rows } = await db.query<{ symbol: string; address: `0x${string}` }>(
    `SELECT symbol, address FROM asset_addresses WHERE network_chain_id = $1 ORDER BY symbol`,
    [chain],
  );
  return Object.fromEntries(rows.map((row) => [row.symbol, row.address]));
}

export async function readChainCursor(db: Queryable, chain: string): Promise<number | undefined> {
  const { rows } = await db.query<{ nextBlock: number }>(`SELECT next_block AS "nextBlock" FROM chain_cursors WHERE chain = $1`, [chain]);
  return rows[0]?.nextBlock;
}

/** Moves the cursor forward to `nextBlock` (never back: a stale scan cannot undo a newer one). */
export async function advanceChainCursor(db: Queryable, chain: string, nextBlock: number): Promise<void> {
  await db.query(`UPDATE chain_cursors SET next_block = $2, updated_at = now() WHERE chain = $1 AND next_block < $2`, [chain, nextBlock]);
}

/**
 * Sets the cursor anywhere (an operator re-scanning blocks); what was recorded stays recorded once. The stored block
 * hashes from the new cursor on are dropped: the scan fetches those blocks again.
 */
export async function resetChainCursor(db: Queryable, chain: string, nextBlock: number): Promise<void> {
  await db.query(
    `WITH dropped AS (DELETE FROM chain_blocks WHERE chain = $1 AND number >= $2)
     UPDATE chain_cursors SET next_block = $2, updated_at = now() WHERE chain = $1`,
    [chain, nextBlock],
  );
}

/** One IssuerRedeem log, as the redemption workflow records it. */
export interface RedemptionRecord {
  redemptionId: string;
  chain: string;
  txHash: `0x${string}`;
  logIndex: number;
  blockNumber: number;
  /** Epoch milliseconds. */
  blockTime: number;
  wallet: `0x${string}`;
  userId: `0x${string}`;
  token: `0x${string}`;
  symbol: string | null;
  /** Token base units (18 decimals). */
  amount: string;
  /** USD, 18 decimals, as the contract reported it. */
  usdNotional: string;
  state: string;
}

const REDEMPTION_COLUMNS = `redemption_id AS "redemptionId", chain, tx_hash AS "txHash", log_index AS "logIndex", block_number AS "blockNumber",
  block_time AS "blockTime", wallet, user_id AS "userId", token, symbol, amount::text, usd_notional::text AS "usdNotional", state`;

/** Records a redemption as `pending` once; a second call answers the row already there. */
export async function recordRedemption(db: Queryable, redemption: Omit<RedemptionRecord, 'state'>): Promise<RedemptionRecord> {
  const { rows } = await db.query<RedemptionRecord>(
    `WITH inserted AS (
       INSERT INTO redemptions (redemption_id, chain, tx_hash, log_index, block_number, block_time, wallet, user_id, token, symbol, amount, usd_notional)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::numeric, $12::numeric)
       ON CONFLICT (redemption_id) DO NOTHING
       RETURNING ${REDEMPTION_COLUMNS}
     )
     SELECT * FROM inserted UNION ALL SELECT ${REDEMPTION_COLUMNS} FROM redemptions WHERE redemption_id = $1 AND NOT EXISTS (SELECT 1 FROM inserted)`,
    [
      redemption.redemptionId,
      redemption.chain,
      redemption.txHash,
      redemption.logIndex,
      redemption.blockNumber,
      redemption.blockTime,
      redemption.wallet,
      redemption.userId,
      redemption.token,
      redemption.symbol,
      redemption.amount,
      redemption.usdNotional,
    ],
  );
  return rows[0]!;
}

export async function listRedemptions(db: Queryable, filter: { chain?: string; wallet?: string } = {}): Promise<RedemptionRecord[]> {
  const { rows } = await db.query<RedemptionRecord>(
    `SELECT ${REDEMPTION_COLUMNS} FROM redemptions
      WHERE ($1::text IS NULL OR chain = $1) AND ($2::text IS NULL OR wallet = $2)
      ORDER BY block_number, log_index`,
    [filter.chain ?? null, filter.wallet?.toLowerCase() ?? null],
  );
  return rows;
}
