/**
 * The Solana chain as the product's parts see it: the JSON-RPC endpoint and the issuer's accounts on it, all derived
 * from the issuer's key (chains/solana-accounts.ts), so the API, the worker and `npm start` find the same mints,
 * treasury and nonce accounts without storing them. The set-up that creates them is start/solana-setup.ts.
 */
import type { Address } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { CHAIN_TABLE, SOLANA_CHAIN } from '../domain/chains';
import type { SolanaIssuerAccounts } from '../signing/solana-transaction';
import { SOLANA_STABLECOIN_SYMBOL, solanaIssuerSigner, solanaMintSigner } from './solana-accounts';

/** Decimals of the stablecoin mint (USD, as on the EVM chains). */
export const SOLANA_STABLECOIN_DECIMALS = 6;
/** Decimals of each stock-token mint. */
export const SOLANA_TOKEN_DECIMALS: number = CHAIN_TABLE[SOLANA_CHAIN].tokenDecimals;

/** The issuer's accounts, wherever the ledger is: what issuing an attestation needs (no RPC). */
export interface SolanaAccountsContext extends SolanaIssuerAccounts {
  /** Each stock token's mint, by catalogue symbol. */
  mints: ReadonlyMap<string, Address>;
  tokenDecimals: number;
}

export interface SolanaContext extends SolanaAccountsContext {
  rpcUrl: string;
}

/** The stablecoin mint's address for the issuer key. */
export async function solanaStablecoinMint(issuerSecretKey: Uint8Array): Promise<Address> {
  return (await solanaMintSigner(issuerSecretKey, SOLANA_STABLECOIN_SYMBOL)).address;
}

/** The treasury: the issuer's associated token account of the stablecoin. */
export async function solanaTreasury(issuer: Address, stablecoinMint: Address): Promise<Address> {
  const [treasury] = await findAssociatedTokenPda({ owner: issuer, mint: stablecoinMint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return treasury;
}

/** The issuer's accounts, with a mint for each of `symbols`: what the API issues Solana attestations with. */
export async function deriveSolanaAccounts(settings: { issuerSecretKey: Uint8Array; symbols: readonly string[] }): Promise<SolanaAccountsContext> {
  const { issuerSecretKey } = settings;
  const issuer = (await solanaIssuerSigner(issuerSecretKey)).address;
  const stablecoinMint = await solanaStablecoinMint(issuerSecretKey);
  const mints = await Promise.all(settings.symbols.map(async (symbol) => [symbol, (await solanaMintSigner(issuerSecretKey, symbol)).address] as const));
  return {
    issuer,
    stablecoinMint,
    stablecoinDecimals: SOLANA_STABLECOIN_DECIMALS,
    treasury: await solanaTreasury(issuer, stablecoinMint),
    mints: new Map(mints),
    tokenDecimals: SOLANA_TOKEN_DECIMALS,
  };
}

/** The issuer's accounts on the ledger at `rpcUrl`, with a mint for each of `symbols`. */
export async function deriveSolanaContext(settings: { rpcUrl: string; issuerSecretKey: Uint8Array; symbols: readonly string[] }): Promise<SolanaContext> {
  return { rpcUrl: settings.rpcUrl, ...(await deriveSolanaAccounts(settings)) };
}
