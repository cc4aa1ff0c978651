/** The product's contracts deployed per EVM chain (`chain_deployments`) and the token addresses they made (`asset_addresses`). */
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

/** Records the product's token addresses on a chain (a catalogue symbol each), replacing what was there for the chain. */
export async function recordTokenAddresses(db: Queryable, chain: string, tokens: Record<string, string>, decimals: number): Promise<void> {
  const symbols = Object.keys(tokens);
  await db.query(
    `INSERT INTO asset_addresses (symbol, network_chain_id, address, decimals)
     SELECT symbol, $1, address, $4 FROM unnest($2::text[], $3::text[]) AS t(symbol, address)
     WHERE EXISTS (SELECT 1 FROM assets a WHERE a.symbol = t.symbol)
     ON CONFLICT (symbol, network_chain_id) DO UPDATE SET address = EXCLUDED.address, decimals = EXCLUDED.decimals`,
    [chain, symbols, symbols.map((symbol) => tokens[symbol]), decimals],
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

/** The catalogue symbol of a token address on a chain, if it is one of the product's tokens. */
export async function tokenSymbolOf(db: Queryable, chain: string, address: string): Promise<string | undefined> {
  const { rows } = await db.query<{ symbol: string }>(`SELECT symbol FROM asset_addresses WHERE network_chain_id = $1 AND lower(address) = lower($2)`, [
    chain,
    address,
  ]);
  return rows[0]?.symbol;
}

/** The product's tokens on a chain by lowercase address: each one's catalogue symbol and the ticker of its underlying. */
export async function chainTokensByAddress(db: Queryable, chain: string): Promise<Map<string, { symbol: string; ticker: string }>> {
  const { rows } = await db.query<{ address: string; symbol: string; ticker: string }>(
    `SELECT lower(t.address) AS address, t.symbol, a.ticker FROM asset_addresses t JOIN assets a USING (symbol) WHERE t.network_chain_id = $1`,
    [chain],
  );
  return new Map(rows.map((row) => [row.address, { symbol: row.symbol, ticker: row.ticker }]));
}

