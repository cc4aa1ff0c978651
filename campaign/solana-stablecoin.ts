/**
 * Invariant 7 on Solana: the issuer's treasury (its stablecoin token account) moved, in each transaction up to the
 * watcher's finalized slot, exactly what the final executions of that transaction owe — a buy pays in and a sell is
 * paid out `solanaAttestationAmounts`' stablecoin (signing/solana-transaction.ts: price × the attested quantity,
 * rounded up for a buy, down for a sell) — and nothing in any other transaction but its funding (a transaction that
 * mints the stablecoin). Read from the ledger over JSON-RPC: the treasury's signatures (getSignaturesForAddress) and
 * each one's token balances before and after (getTransaction at `finalized`).
 */
import { address, createSolanaRpc, type Signature } from '@solana/kit';
import { SOLANA_TOKEN_DECIMALS } from '../chains/solana-context';
import type { Queryable } from '../db/pool';
import { SOLANA_CHAIN } from '../domain/chains';
import { Decimal } from '../domain/money';
import { QUOTE_SIDE } from '../signing/quote';
import { solanaAttestationAmounts } from '../signing/solana-transaction';
import type { Violation } from './invariants';

/** The Solana ledger and the issuer's accounts on it, as stack.json's `chains['solana-900']` names them. */
export interface SolanaTreasury {
  rpcUrl: string;
  /** The issuer's stablecoin token account (buys pay into it, sells are paid from it). */
  treasury: string;
  stablecoinMint: string;
}

/** getSignaturesForAddress answers at most this many a call. */
const SIGNATURES_PAGE = 1000;

interface TokenBalance {
  accountIndex: number;
  mint: string;
  uiTokenAmount: { amount: string };
}

/** The treasury's finalized signatures that succeeded, at or below `toSlot`, oldest first. */
async function treasurySignatures(rpc: ReturnType<typeof createSolanaRpc>, treasury: string, toSlot: bigint): Promise<{ signature: Signature; slot: bigint }[]> {
  const found: { signature: Signature; slot: bigint }[] = [];
  let before: Signature | undefined;
  for (;;) {
    const page = await rpc.getSignaturesForAddress(address(treasury), { commitment: 'finalized', limit: SIGNATURES_PAGE, before }).send();
    for (const entry of page) if (entry.err === null && entry.slot <= toSlot) found.push({ signature: entry.signature, slot: entry.slot });
    if (page.length < SIGNATURES_PAGE) return found.reverse();
    before = page.at(-1)!.signature;
  }
}

/** What one transaction did to the treasury, and to the stablecoin's supply (non-zero: it minted or burned the stablecoin). */
async function stablecoinMoves(rpc: ReturnType<typeof createSolanaRpc>, signature: Signature, accounts: SolanaTreasury): Promise<{ treasury: bigint; supply: bigint }> {
  const transaction = await rpc.getTransaction(signature, { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
  if (!transaction?.meta) throw new Error(`Solana transaction ${signature} is listed as finalized but not answered by getTransaction`);
  const keys = transaction.transaction.message.accountKeys.map(String);
  const sum = (balances: readonly TokenBalance[] | null | undefined, only?: string) =>
    (balances ?? []).filter((balance) => balance.mint === accounts.stablecoinMint && (only === undefined || keys[balance.accountIndex] === only)).reduce((total, balance) => total + BigInt(balance.uiTokenAmount.amount), 0n);
  const pre = transaction.meta.preTokenBalances as readonly TokenBalance[] | undefined;
  const post = transaction.meta.postTokenBalances as readonly TokenBalance[] | undefined;
  return { treasury: sum(post, accounts.treasury) - sum(pre, accounts.treasury), supply: sum(post) - sum(pre) };
}

/** (7) on Solana: per transaction, the treasury's stablecoin in and out against what its final executions owe. */
export async function checkStablecoinOnSolana(db: Queryable, accounts: SolanaTreasury): Promise<Violation[]> {
  const { rows: cursors } = await db.query<{ finalSlot: string | null }>(`SELECT final_block::text AS "finalSlot" FROM chain_cursors WHERE chain = $1`, [SOLANA_CHAIN]);
  const finalSlot = cursors[0]?.finalSlot;
  if (!finalSlot) return [];
  const rpc = createSolanaRpc(accounts.rpcUrl);
  const stablecoinDecimals = (await rpc.getTokenSupply(address(accounts.stablecoinMint), { commitment: 'finalized' }).send()).value.decimals;
  const { rows: executions } = await db.query<{ txHash: string; slot: string; side: 'buy' | 'sell'; price: string; quantity: string; attestationId: string }>(
    `SELECT x.tx_hash AS "txHash", x.block_number::text AS slot, x.side, trunc(a.price * 1e18)::text AS price, trunc(a.token_amount * 1e18)::text AS quantity,
            x.attestation_id::text AS "attestationId"
       FROM trade_executions x JOIN attestations a USING (attestation_id)
      WHERE x.chain = $1 AND x.status = 'final' AND x.block_number <= $2 ORDER BY x.block_number, x.tx_hash`,
    [SOLANA_CHAIN, finalSlot],
  );
  const owed = new Map<string, { amount: bigint; slot: bigint; attestationIds: string[] }>();
  for (const execution of executions) {
    const { stablecoin } = solanaAttestationAmounts({
      side: execution.side === 'buy' ? QUOTE_SIDE.buy : QUOTE_SIDE.sell,
      price: BigInt(execution.price),
      quantity: BigInt(execution.quantity),
      stockDecimals: SOLANA_TOKEN_DECIMALS,
      stablecoinDecimals,
    });
    const entry = owed.get(execution.txHash) ?? { amount: 0n, slot: BigInt(execution.slot), attestationIds: [] };
    owed.set(execution.txHash, { ...entry, amount: entry.amount + (execution.side === 'buy' ? stablecoin : -stablecoin), attestationIds: [...entry.attestationIds, execution.attestationId] });
  }
  const moved = new Map<string, { amount: bigint; slot: bigint }>();
  for (const { signature, slot } of await treasurySignatures(rpc, accounts.treasury, BigInt(finalSlot))) {
    const moves = await stablecoinMoves(rpc, signature, accounts);
    // Its funding: a transaction that mints the stablecoin (only the issuer, its mint authority, can).
    if (moves.supply !== 0n && !owed.has(signature)) continue;
    if (moves.treasury !== 0n) moved.set(signature, { amount: moves.treasury, slot });
  }
  const slotOf = (txHash: string) => (owed.get(txHash) ?? moved.get(txHash))!.slot;
  const transactions = [...new Set([...owed.keys(), ...moved.keys()])].sort((a, b) => Number(slotOf(a) - slotOf(b)) || a.localeCompare(b));
  const units = (amount: bigint) => new Decimal(amount.toString()).div(new Decimal(10).pow(stablecoinDecimals)).toFixed();
  const violations: Violation[] = [];
  for (const txHash of transactions) {
    const expected = owed.get(txHash)?.amount ?? 0n;
    const actual = moved.get(txHash)?.amount ?? 0n;
    if (expected === actual) continue;
    violations.push({
      invariant: '7 stablecoin',
      rule: owed.has(txHash) ? "the Solana treasury's stablecoin moved other than its executions owe" : "the Solana treasury's stablecoin moved outside any final execution",
      records: { chain: SOLANA_CHAIN, txHash, slot: slotOf(txHash).toString(), attestationIds: owed.get(txHash)?.attestationIds.join(',') ?? '', expected: units(expected), moved: units(actual) },
    });
  }
  return violations;
}

