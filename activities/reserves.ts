/**
 * Proof of reserves, computed: for every asset with a token on a deployed chain, the token supply read on chain at the
 * last final block the chain's watcher acted on (so every final execution below it already owes its hedge), the
 * shares the issuer's account holds at the broker, and what is in flight between them:
 * - `hedges`: shares owed by final attestation executions and not yet filled (buys positive, sells negative);
 * - `redemptions`: shares of final burns not yet delivered to the participant (still held, no longer required);
 * - `partnerMints`: shares received for partner mints whose tokens are not in the supply read yet (held, not yet
 *   required): not minted, or minted in a block above the one read.
 * backing = held + hedges − redemptions − partnerMints; required = supply × multiplier now. An asset is `short` when
 * required − backing exceeds the tolerance (RESERVES_TOLERANCE_BPS of what is required, and at least one broker unit,
 * 1e-9 share, so rounding carries never count); its attestation minting is paused until it is covered again.
 * Solana has no past state to read: each mint's supply is read at `finalized` (getTokenSupply) before the database
 * snapshot, less the tokens of the executions at or below that slot the watcher has seen but not made final yet (in
 * the supply, owing no hedge yet); `blocks` names the slot read.
 * Each computation is stored (reserve_snapshots) and answered.
 */
import { Context } from '@temporalio/activity';
import { createSolanaRpc, type Address } from '@solana/kit';
import type { PublicClient } from 'viem';
import type { ChainContexts } from '../chains/context';
import type { SolanaContext } from '../chains/solana-context';
import { tokenSupplyAt } from '../chains/token-supply';
import { receiptOf } from '../chains/transactions';
import { inTransaction, type Database, type Queryable } from '../db/pool';
import { listChainDeployments } from '../db/queries/chain-deployments';
import { readWatcherCursor } from '../db/queries/chain-watcher';
import { multipliersAt } from '../db/queries/corporate-actions';
import { hedgesInFlight } from '../db/queries/hedging';
import { applyReservePauses, insertReserveSnapshots, partnerInFlight, type PartnerInFlight, type ReserveAsset } from '../db/queries/reserves';
import { unfinalTokensAtOrBelow } from '../db/queries/solana-watcher';
import { Decimal, Rounding } from '../domain/money';
import { SOLANA_CHAIN, type EvmChain } from '../domain/chains';
import type { BrokerClient } from '../partner/broker-client';

export interface ReservesActivityDependencies {
  db: Database;
  chains?: ChainContexts;
  /** The Solana ledger and the issuer's mints on it; absent: Solana supply is not counted. */
  solana?: SolanaContext;
  broker?: BrokerClient;
  /** RESERVES_TOLERANCE_BPS */
  toleranceBps: number;
}

export interface ReservesComputation {
  takenAt: number;
  assets: number;
  short: string[];
  paused: string[];
  resumed: string[];
  ms: number;
}

const TOKEN_UNIT = new Decimal(10).pow(18);
const SHARE_UNIT = new Decimal('0.000000001');

interface FinalTokens {
  chain: EvmChain;
  /** The chain's last final block the watcher acted on (its deployment block before any). */
  block: number;
  tokens: { symbol: string; ticker: string; address: `0x${string}` }[];
}

/** The tokens of each deployed chain this worker reaches, with the block to read their supply at. */
async function finalTokens(db: Queryable, chains: ChainContexts): Promise<FinalTokens[]> {
  const deployed: FinalTokens[] = [];
  for (const deployment of await listChainDeployments(db)) {
    const chain = deployment.chain as EvmChain;
    if (!chains[chain]) continue;
    const cursor = await readWatcherCursor(db, chain);
    const block = cursor?.finalBlock !== null && cursor?.finalBlock !== undefined && cursor.finalBlock >= deployment.deployedBlock ? cursor.finalBlock : deployment.deployedBlock;
    const { rows } = await db.query<FinalTokens['tokens'][number]>(
      `SELECT t.symbol, a.ticker, t.address FROM asset_addresses t JOIN assets a USING (symbol) WHERE t.network_chain_id = $1 ORDER BY t.symbol`,
      [chain],
    );
    deployed.push({ chain, block, tokens: rows });
  }
  return deployed;
}

/**
 * The partner requests still in flight at the blocks read: a mint drops out once its transaction succeeded in a block
 * at or below its chain's (its tokens are in that supply), whatever its state says yet — the mint's own wait for
 * finality and the watcher's final block advance apart, and counted both ways its shares made a false shortfall.
 */
async function partnerOutsideSupply(chains: ChainContexts, requests: PartnerInFlight[], blocks: Record<string, number>): Promise<PartnerInFlight[]> {
  const inSupply = await Promise.all(
    requests.map(async (request) => {
      const block = blocks[request.chain];
      if (request.kind !== 'mint' || !request.txHash || block === undefined) return false;
      const receipt = await receiptOf(chains[request.chain as EvmChain]!.client as PublicClient, request.txHash);
      return receipt?.status === 'success' && Number(receipt.blockNumber) <= block;
    }),
  );
  return requests.filter((_, index) => !inSupply[index]);
}

/** Each asset's supply per chain, read on chain at that chain's block. */
async function supplies(chains: ChainContexts, deployed: FinalTokens[]): Promise<{ byAsset: Map<string, Record<string, string>>; blocks: Record<string, number>; tickers: Map<string, string> }> {
  const byAsset = new Map<string, Record<string, string>>();
  const blocks: Record<string, number> = {};
  const tickers = new Map<string, string>();
  for (const { chain, block, tokens } of deployed) {
    blocks[chain] = block;
    const client = chains[chain]!.client as PublicClient;
    const totals = await Promise.all(tokens.map((token) => tokenSupplyAt(client, token.address, block)));
    tokens.forEach((token, index) => {
      tickers.set(token.symbol, token.ticker);
      byAsset.set(token.symbol, { ...byAsset.get(token.symbol), [chain]: new Decimal(totals[index]!.toString()).div(TOKEN_UNIT).toFixed() });
    });
  }
  return { byAsset, blocks, tickers };
}

/** Each Solana mint's supply at `finalized` (base units; 0 for a mint not made yet), and the slot read. */
async function solanaSupplies(solana: SolanaContext): Promise<{ slot: number; supplies: Map<string, bigint> }> {
  const rpc = createSolanaRpc(solana.rpcUrl);
  let slot = -1;
  const supplies = new Map<string, bigint>();
  for (const [symbol, mint] of solana.mints) {
    try {
      const { context, value } = await rpc.getTokenSupply(mint, { commitment: 'finalized' }).send();
      slot = Math.max(slot, Number(context.slot));
      supplies.set(symbol, BigInt(value.amount));
    } catch (error) {
      const { value } = await rpc.getAccountInfo(mint as Address, { commitment: 'finalized', encoding: 'base64' }).send();
      if (value !== null) throw error;
      supplies.set(symbol, 0n);
    }
  }
  return { slot, supplies };
}

/** The Solana supply of each catalogue asset at the slot read, less what the watcher has not made final there. */
async function solanaByAsset(db: Queryable, solana: SolanaContext, read: { slot: number; supplies: Map<string, bigint> }) {
  const unfinal = await unfinalTokensAtOrBelow(db, SOLANA_CHAIN, read.slot);
  const { rows } = await db.query<{ symbol: string; ticker: string }>(`SELECT symbol, ticker FROM assets WHERE symbol = ANY($1::text[]) ORDER BY symbol`, [
    [...read.supplies.keys()],
  ]);
  return rows.map((row) => ({
    ...row,
    tokens: new Decimal(read.supplies.get(row.symbol)!.toString())
      .div(new Decimal(10).pow(solana.tokenDecimals))
      .minus(new Decimal(unfinal.get(row.symbol) ?? '0').div(TOKEN_UNIT))
      .toFixed(),
  }));
}

export function createReservesActivities(deps: ReservesActivityDependencies) {
  const { db } = deps;
  return {
    /** Computes, stores and acts on the reserves of every asset (see the module header). */
    async computeReserves(): Promise<ReservesComputation> {
      const started = performance.now();
      const { chains, broker, solana } = deps;
      if (!chains && !solana) throw new Error('this worker has no chains configured: the token supply cannot be read');
      if (!broker) throw new Error('this worker has no broker configured: the shares held cannot be read');
      const takenAt = Date.now();
      // The broker first, then the database: a fill lands at the broker before it is recorded, so a fill between the
      // two reads is never counted twice (held and still in flight), at worst missed once — its settlement asks for
      // a recomputation. The database in one snapshot: the watcher commits a final block with the obligations it
      // makes final, so the supply read at that block and the hedges owed agree.
      const positions = await broker.positions();
      // Solana's supply before the snapshot: what the watcher made final at or below the slot read is in it.
      const solanaRead = solana && (await solanaSupplies(solana));
      const { deployed, solanaTokens, hedges, partner, multipliers } = await inTransaction(
        db,
        async (client) => ({
          deployed: chains ? await finalTokens(client, chains) : [],
          solanaTokens: solana && solanaRead ? await solanaByAsset(client, solana, solanaRead) : [],
          hedges: await hedgesInFlight(client),
          partner: await partnerInFlight(client),
          multipliers: await multipliersAt(client, takenAt),
        }),
        { snapshot: true },
      );
      const { byAsset, blocks, tickers } = await supplies(chains ?? {}, deployed);
      for (const token of solanaTokens) {
        blocks[SOLANA_CHAIN] = solanaRead!.slot;
        tickers.set(token.symbol, token.ticker);
        byAsset.set(token.symbol, { ...byAsset.get(token.symbol), [SOLANA_CHAIN]: token.tokens });
      }
      const inFlight = await partnerOutsideSupply(chains ?? {}, partner, blocks);
      const held = new Map(positions.map((position) => [position.symbol, position.qty]));
      const assets: ReserveAsset[] = [];
      for (const [symbol, byChain] of byAsset) {
        const underlying = tickers.get(symbol)!;
        const multiplier = multipliers.get(symbol) ?? '1';
        const total = Object.values(byChain).reduce((sum, amount) => sum.plus(amount), new Decimal(0));
        const required = total.times(multiplier);
        const sharesHeld = new Decimal(held.get(underlying) ?? 0);
        const hedge = hedges.get(underlying) ?? { inFlight: '0', review: '0' };
        let redemptions = new Decimal(0);
        let partnerMints = new Decimal(0);
        for (const request of inFlight.filter((entry) => entry.tokenSymbol === symbol)) {
          const shares = request.qty ?? new Decimal(request.tokenAmount ?? 0).div(TOKEN_UNIT).times(multiplier).toFixed();
          if (request.kind === 'redeem') redemptions = redemptions.plus(shares);
          else partnerMints = partnerMints.plus(shares);
        }
        const backing = sharesHeld.plus(hedge.inFlight).minus(redemptions).minus(partnerMints);
        const shortfall = Decimal.max(required.minus(backing), 0);
        const tolerance = Decimal.max(required.times(deps.toleranceBps).div(10_000), SHARE_UNIT);
        assets.push({
          underlying,
          symbol,
          sharesMultiplier: new Decimal(multiplier).toFixed(),
          tokens: { total: total.toFixed(), byChain, blocks: Object.fromEntries(Object.keys(byChain).map((chain) => [chain, blocks[chain]!])) },
          sharesRequired: required.toDecimalPlaces(18, Rounding.UP).toFixed(),
          sharesHeld: sharesHeld.toFixed(),
          inFlight: { hedges: new Decimal(hedge.inFlight).toDecimalPlaces(18, Rounding.DOWN).toFixed(), redemptions: redemptions.toFixed(), partnerMints: partnerMints.toFixed() },
          review: hedge.review,
          shortfall: shortfall.toDecimalPlaces(18, Rounding.UP).toFixed(),
          coverage: required.isZero() ? '1' : backing.div(required).toDecimalPlaces(6, Rounding.DOWN).toFixed(),
          status: shortfall.gt(tolerance) ? 'short' : 'covered',
        });
      }
      await insertReserveSnapshots(db, takenAt, assets);
      const short = assets.filter((asset) => asset.status === 'short');
      const changes = await applyReservePauses(
        db,
        short.map((asset) => ({
          symbol: asset.symbol,
          shortfall: asset.shortfall,
          reason: `reserves short by ${asset.shortfall} ${asset.underlying} shares (coverage ${asset.coverage}) at ${new Date(takenAt).toISOString()}`,
        })),
        takenAt,
      );
      const log = Context.current().log;
      if (changes.paused.length > 0) log.warn('reserves short: attestation minting paused', { symbols: changes.paused });
      if (changes.resumed.length > 0) log.info('reserves covered again: attestation minting resumed', { symbols: changes.resumed });
      return { takenAt, assets: assets.length, short: short.map((asset) => asset.symbol), ...changes, ms: performance.now() - started };
    },
  };
}

export type ReservesActivities = ReturnType<typeof createReservesActivities>;
