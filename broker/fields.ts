/**
 * The fields the sandbox's endpoints share, as zod schemas beside the error code each fails with:
 * share quantities (decimal strings, at most nine decimals), symbols, networks, wallets, ids.
 */
import { getAddress, isAddress, type Address } from 'viem';
import { z } from 'zod';
import { bareChainId } from '../domain/chains';
import { PARTNER_NETWORKS, type PartnerNetwork } from '../domain/partner';
import type { FieldCodes } from './framework/validation';

/** The networks of the in-kind flow (the partner's names of the issuer's chains, domain/chains.ts). */
export const NETWORKS = Object.keys(PARTNER_NETWORKS) as PartnerNetwork[];
export type Network = PartnerNetwork;

/** EIP-712 `chainId` of each network. */
export const NETWORK_CHAIN_IDS = Object.fromEntries(NETWORKS.map((network) => [network, Number(bareChainId(PARTNER_NETWORKS[network]))])) as Record<Network, number>;

/** Whole digits a quantity may have: numeric(30, 9) leaves 21, 15 is more than any position needs. */
const QTY = /^(0|[1-9]\d{0,14})(\.\d{1,9})?$/;

export const qtySchema = z
  .string({ error: 'must be a decimal string' })
  .regex(QTY, 'must be a decimal string with at most nine decimals')
  .refine((value) => /[1-9]/.test(value), 'must be greater than zero');

export const underlyingSymbolSchema = z.string({ error: 'must be a string' }).regex(/^[A-Z][A-Z0-9.]{0,9}$/, 'must be an underlying ticker such as AAPL');

export const networkSchema = z.enum(NETWORKS, { error: `must be ${NETWORKS.join(' or ')}` });

export const walletSchema = z
  .string({ error: 'must be a string' })
  .refine((value) => /^0x[0-9a-fA-F]{40}$/.test(value) && isAddress(value), 'must be a 0x-prefixed 20-byte address (mixed case: a valid checksum)')
  .transform((value) => getAddress(value) as Address);

export const txHashSchema = z
  .string({ error: 'must be a string' })
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hash')
  .transform((value) => value.toLowerCase());

export const identifierSchema = z.string({ error: 'must be a string' }).min(1).max(200);

export const uuidSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a UUID');

/** The token symbol of an underlying: `AAPL` → `AAPLon`. */
export function tokenSymbolOf(underlying: string): string {
  return `${underlying}on`;
}

export const FIELD_CODES: FieldCodes = {
  qty: 'INVALID_QTY',
  underlying_symbol: 'INVALID_SYMBOL',
  token_symbol: 'INVALID_SYMBOL',
  network: 'INVALID_NETWORK',
  wallet_address: 'INVALID_WALLET_ADDRESS',
  tx_hash: 'INVALID_TX_HASH',
};

export const accountParams = z.object({ account_id: uuidSchema });
export const requestParams = accountParams.extend({ tokenization_request_id: uuidSchema });
