/**
 * The arithmetic and names of the partner (brokerage) in-kind flow. Pure.
 *
 * Shares and tokens differ by the shares multiplier (underlying shares per token, growing as dividends are
 * reinvested): a mint of `qty` shares delivers `qty ÷ multiplier` tokens rounded down to 18 decimals (the token's
 * base unit), and a redemption of `t` tokens delivers `t × multiplier` shares rounded down to 9 decimals (the
 * partner's precision), the remainder recorded as dust. Rounding always favours the issuer's books: the shares
 * held always cover the tokens out.
 */
import { CHAIN_TABLE, CHAINS, type Chain, type ChainEntry, type ChainTable } from './chains';
import { Decimal, Rounding } from './money';

/** The chains of the partner flow (those the chain table gives a partner network name), and those names. */
export type PartnerChain = { [C in Chain]: ChainTable[C] extends { partnerNetwork: string } ? C : never }[Chain];
export type PartnerNetwork = ChainTable[PartnerChain]['partnerNetwork'];

/** The partner's network names and the product's chains (`ethereum` → `ethereum-1`). */
export const PARTNER_NETWORKS = Object.fromEntries(
  CHAINS.flatMap((chain) => {
    const entry: ChainEntry = CHAIN_TABLE[chain];
    return entry.partnerNetwork ? [[entry.partnerNetwork, chain]] : [];
  }),
) as { readonly [C in PartnerChain as ChainTable[C]['partnerNetwork']]: C };

export function chainOfNetwork(network: PartnerNetwork): PartnerChain {
  return PARTNER_NETWORKS[network];
}

export function networkOfChain(chain: string): PartnerNetwork {
  const entry = Object.entries(PARTNER_NETWORKS).find(([, id]) => id === chain);
  if (!entry) throw new Error(`chain ${chain} is not in the partner flow`);
  return entry[0] as PartnerNetwork;
}

/** Partner quantities carry at most nine decimals. */
export const SHARE_DECIMALS = 9;
const TOKEN_DECIMALS = 18;
const TOKEN_UNIT = new Decimal(10).pow(TOKEN_DECIMALS);

/** Token base units minted for `qty` shares: qty ÷ multiplier, rounded down to 18 decimals. */
export function tokensForShares(qty: string, multiplier: string): bigint {
  const tokens = new Decimal(qty).div(new Decimal(multiplier)).toDecimalPlaces(TOKEN_DECIMALS, Rounding.DOWN);
  return BigInt(tokens.times(TOKEN_UNIT).toFixed(0));
}

/** Shares owed for burned token base units: tokens × multiplier rounded down to 9 decimals, and the dust left. */
export function sharesForTokens(tokenAmount: bigint | string, multiplier: string): { shares: string; dust: string } {
  const exact = new Decimal(tokenAmount.toString()).div(TOKEN_UNIT).times(new Decimal(multiplier));
  const shares = exact.toDecimalPlaces(SHARE_DECIMALS, Rounding.DOWN);
  return { shares: shares.toFixed(), dust: exact.minus(shares).toFixed() };
}

/** USD value of `qty` shares at `price`, to the cent rounded up (a limit is never under-counted). */
export function notionalUsd(qty: string, price: string): string {
  return new Decimal(qty).times(new Decimal(price)).toDecimalPlaces(2, Rounding.UP).toFixed(2);
}

/** The partner-facing status of a request in any workflow state (a burn that left the chain, `cancelled`, ended with nothing). */
export function partnerStatus(state: string): 'pending' | 'completed' | 'rejected' {
  if (state === 'completed' || state === 'rejected') return state;
  if (state === 'cancelled') return 'rejected';
  return 'pending';
}

/** The token symbol of an underlying (`AAPL` → `AAPLon`). */
export function tokenSymbolOf(underlying: string): string {
  return `${underlying}on`;
}
