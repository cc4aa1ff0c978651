/**
 * Invariants 7 (the stablecoin adds up) and 1 (backing) of the campaign's checker.
 * - 7: each execution settled the attested price and quantity (database), and on each EVM chain given, the token
 *   manager's stablecoin moved in each final execution's transaction exactly what the contract charges for it —
 *   buys `ceil(quantity × price / 10^(36 − decimals))` in, sells the floor of it out — and in no other transaction
 *   but its reserve's funding (minted to it, or sent by the deployer), up to the watcher's final block.
 * - 1: the last reserves computation (activities/reserves.ts, stored in reserve_snapshots) of each asset with
 *   nothing in flight (hedges: less than one broker unit, their carry) nor under review: neither short nor over-backed
 *   beyond the hedges' rounding carry.
 */
import { erc20Abi, parseAbiItem, zeroAddress, type Address, type Hex, type PublicClient } from 'viem';
import type { Queryable } from '../db/pool';
import { latestReserveSnapshot } from '../db/queries/reserves';
import { CHAIN_TABLE, type EvmChain } from '../domain/chains';
import { Decimal } from '../domain/money';
import type { SqlRule, Violation } from './invariants';

/**
 * The quantity an execution of attestation `a` on chain `x.chain` moves, in 18 decimals: the attested quantity (18
 * decimals, truncated as the API scales it), on a chain whose tokens have fewer decimals rounded to them in the
 * issuer's favour as its transaction does (signing/solana-transaction.ts): a buy mints it rounded down, a sell burns it
 * rounded up.
 */
function executedQuantity(): string {
  const attested = 'trunc(a.token_amount * 1e18)';
  const coarser = Object.entries(CHAIN_TABLE).filter(([, entry]) => entry.tokenDecimals < 18);
  if (coarser.length === 0) return attested;
  const cases = coarser.map(([chain, entry]) => {
    const unit = `1e${18 - entry.tokenDecimals}`;
    return `WHEN '${chain}' THEN (CASE a.side WHEN 'buy' THEN floor(${attested} / ${unit}) ELSE ceil(${attested} / ${unit}) END) * ${unit}`;
  });
  return `(CASE x.chain ${cases.join(' ')} ELSE ${attested} END)`;
}

/** (7) in the database: what was executed is what was attested, so what was paid is the attested notional. */
export const STABLECOIN_RULES: SqlRule[] = [
  {
    invariant: '7 stablecoin',
    rule: 'an execution settled another price or quantity than attested',
    sql: `SELECT x.chain, x.tx_hash AS "txHash", x.attestation_id::text AS "attestationId",
                 x.price::text AS price, trunc(a.price * 1e18)::text AS "attestedPrice",
                 x.quantity::text AS quantity, ${executedQuantity()}::text AS "attestedQuantity"
            FROM trade_executions x JOIN attestations a USING (attestation_id)
           WHERE x.status <> 'orphaned' AND (x.price <> trunc(a.price * 1e18) OR x.quantity <> ${executedQuantity()})
           ORDER BY x.seen_at, x.chain, x.tx_hash`,
  },
];

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

interface Deployment {
  chain: EvmChain;
  tokenManager: Address;
  stablecoin: Address;
  deployer: Address;
  deployedBlock: string;
  finalBlock: string | null;
}

/** What the token manager charges (buy, rounded up) or pays (sell, rounded down) for an execution, in stablecoin units. */
export function settlementAmount(side: 'buy' | 'sell', quantity: bigint, price: bigint, decimals: number): bigint {
  const divisor = 10n ** BigInt(36 - decimals);
  const product = quantity * price;
  return side === 'buy' ? (product + divisor - 1n) / divisor : product / divisor;
}

/** The token manager's stablecoin in and out per transaction (and its block), from its deployment to `toBlock`, less its funding. */
async function tokenManagerFlows(client: PublicClient, deployment: Deployment, toBlock: bigint): Promise<Map<Hex, { amount: bigint; block: bigint }>> {
  const range = { address: deployment.stablecoin, event: TRANSFER, fromBlock: BigInt(deployment.deployedBlock), toBlock } as const;
  const [incoming, outgoing] = await Promise.all([
    client.getLogs({ ...range, args: { to: deployment.tokenManager } }),
    client.getLogs({ ...range, args: { from: deployment.tokenManager } }),
  ]);
  const flows = new Map<Hex, { amount: bigint; block: bigint }>();
  // The reserve's funding: minted to it (only the deployer mints the development stablecoin) or sent by the deployer.
  const funding = new Set([deployment.deployer.toLowerCase(), zeroAddress, deployment.tokenManager.toLowerCase()]);
  for (const [logs, sign] of [[incoming, 1n], [outgoing, -1n]] as const) {
    for (const log of logs) {
      const counterparty = (sign === 1n ? log.args.from : log.args.to)!.toLowerCase();
      if (funding.has(counterparty)) continue;
      const amount = (flows.get(log.transactionHash)?.amount ?? 0n) + sign * log.args.value!;
      flows.set(log.transactionHash, { amount, block: log.blockNumber });
    }
  }
  return flows;
}

/** (7) on the EVM chains given: per transaction, the stablecoin the token manager moved against what its final executions owed. */
export async function checkStablecoinOnChains(db: Queryable, chains: Partial<Record<EvmChain, PublicClient>>): Promise<Violation[]> {
  const { rows: deployments } = await db.query<Deployment>(
    `SELECT d.chain, d.token_manager AS "tokenManager", d.stablecoin, d.deployer, d.deployed_block::text AS "deployedBlock", c.final_block::text AS "finalBlock"
       FROM chain_deployments d LEFT JOIN chain_cursors c USING (chain) ORDER BY d.chain`,
  );
  const violations: Violation[] = [];
  for (const deployment of deployments) {
    const client = chains[deployment.chain];
    if (!client || deployment.finalBlock === null) continue;
    const toBlock = BigInt(deployment.finalBlock);
    const decimals = await client.readContract({ address: deployment.stablecoin, abi: erc20Abi, functionName: 'decimals' });
    const { rows: executions } = await db.query<{ txHash: Hex; block: string; side: 'buy' | 'sell'; price: string; quantity: string; attestationId: string }>(
      `SELECT tx_hash AS "txHash", block_number::text AS block, side, price::text, quantity::text, attestation_id::text AS "attestationId"
         FROM trade_executions WHERE chain = $1 AND status = 'final' AND block_number <= $2 ORDER BY block_number, tx_hash, log_index`,
      [deployment.chain, deployment.finalBlock],
    );
    const owed = new Map<Hex, { amount: bigint; block: bigint; attestationIds: string[] }>();
    for (const execution of executions) {
      const amount = settlementAmount(execution.side, BigInt(execution.quantity), BigInt(execution.price), decimals);
      const entry = owed.get(execution.txHash) ?? { amount: 0n, block: BigInt(execution.block), attestationIds: [] };
      owed.set(execution.txHash, { ...entry, amount: entry.amount + (execution.side === 'buy' ? amount : -amount), attestationIds: [...entry.attestationIds, execution.attestationId] });
    }
    const flows = await tokenManagerFlows(client, deployment, toBlock);
    const blockOf = (txHash: Hex) => (owed.get(txHash) ?? flows.get(txHash))!.block;
    const transactions = [...new Set([...owed.keys(), ...flows.keys()])].sort((a, b) => Number(blockOf(a) - blockOf(b)) || a.localeCompare(b));
    for (const txHash of transactions) {
      const expected = owed.get(txHash)?.amount ?? 0n;
      const moved = flows.get(txHash)?.amount ?? 0n;
      if (expected === moved) continue;
      violations.push({
        invariant: '7 stablecoin',
        rule: owed.has(txHash) ? "the token manager's stablecoin moved other than its executions owe" : "the token manager's stablecoin moved outside any final execution",
        records: {
          chain: deployment.chain,
          txHash,
          attestationIds: owed.get(txHash)?.attestationIds.join(',') ?? '',
          expected: new Decimal(expected.toString()).div(new Decimal(10).pow(decimals)).toFixed(),
          moved: new Decimal(moved.toString()).div(new Decimal(10).pow(decimals)).toFixed(),
        },
      });
    }
  }
  return violations;
}

/** One broker unit: the hedges' orders are in nine decimals. */
const SHARE_UNIT = new Decimal('0.000000001');

/** (1) The last reserves computation, for each asset with nothing in flight: neither short nor over-backed beyond the carry. */
/** Per underlying, the shares the partner flow's rounding left with the issuer: redemptions' dust, mints' remainder. */
const PARTNER_DUST = `
  SELECT underlying_symbol AS underlying,
         (coalesce(sum(share_dust) FILTER (WHERE kind = 'redeem' AND state IN ('delivering', 'completed')), 0)
          + coalesce(sum(qty - token_amount / 1e18 * shares_multiplier) FILTER (WHERE kind = 'mint' AND state IN ('minted', 'completed')), 0))::text AS dust
    FROM partner_requests GROUP BY underlying_symbol`;

export async function checkBacking(db: Queryable): Promise<Violation[]> {
  const snapshot = await latestReserveSnapshot(db);
  if (!snapshot) return [];
  const { rows } = await db.query<{ underlying: string; carry: string }>(`SELECT underlying, sum(abs(shares))::text AS carry FROM hedge_carry GROUP BY underlying`);
  const carries = new Map(rows.map((row) => [row.underlying, new Decimal(row.carry)]));
  // The partner flow's rounding stays with the issuer too: a redemption delivers the shares owed rounded down to the
  // broker's unit (its dust recorded), a mint mints the tokens the shares buy rounded down to the token's unit.
  const { rows: partner } = await db.query<{ underlying: string; dust: string }>(PARTNER_DUST);
  for (const { underlying, dust } of partner) carries.set(underlying, (carries.get(underlying) ?? new Decimal(0)).plus(dust));
  const violations: Violation[] = [];
  for (const asset of snapshot.assets) {
    const { hedges, redemptions, partnerMints } = asset.inFlight;
    // Once filled, what a hedge leaves in flight is its rounding carry, under one broker unit.
    const settled = new Decimal(hedges).abs().lt(SHARE_UNIT) && [redemptions, partnerMints, asset.review].every((amount) => new Decimal(amount).isZero());
    if (!settled) continue;
    const surplus = new Decimal(asset.sharesHeld).minus(asset.sharesRequired);
    const allowance = (carries.get(asset.underlying) ?? new Decimal(0)).plus(SHARE_UNIT);
    if (asset.status === 'covered' && surplus.abs().lte(allowance)) continue;
    violations.push({
      invariant: '1 backing',
      rule: surplus.isNegative() ? 'tokens not backed by shares held' : 'shares held beyond the tokens and the rounding carry',
      records: {
        symbol: asset.symbol,
        takenAt: new Date(snapshot.takenAt).toISOString(),
        tokens: asset.tokens.total,
        sharesMultiplier: asset.sharesMultiplier,
        sharesRequired: asset.sharesRequired,
        sharesHeld: asset.sharesHeld,
        allowance: allowance.toFixed(),
      },
    });
  }
  return violations;
}
