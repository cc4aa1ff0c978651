/**
 * The Solana part of `npm start`: the cluster SOLANA_RPC_URL names (checked reachable, nothing started), or else the
 * local ledger (solana-ledger/) on SOLANA_RPC_PORT with its state under DATA_DIR/solana, stopped with the stack.
 * The product reaches either only through JSON-RPC. Also what the product's roles take from it: the issuer's accounts
 * derived from its key (the API's mints), the mints recorded as the tokens' solana-900 addresses, and the set-up's
 * nonce accounts registered into the pool table.
 */
import path from 'node:path';
import type { Address } from '@solana/kit';
import { deriveSolanaAccounts, type SolanaAccountsContext } from '../chains/solana-context';
import { rpcNonceLedger } from '../chains/solana-ledger';
import type { Config } from '../config';
import type { Logger } from '../config/logger';
import { recordTokenAddresses } from '../db/queries/chain-deployments';
import type { Queryable } from '../db/pool';
import { addNonceAccounts } from '../db/queries/solana-nonces';
import { CATALOGUE } from '../domain/catalogue';
import { SOLANA_CHAIN } from '../domain/chains';
import type { SignerKeys } from '../signing';
import { startSolanaLedger, type SolanaLedgerOptions } from '../solana-ledger';
import type { Part } from './parts';
import { issuerSolanaSecretKey, type SolanaStackChain } from './solana-setup';

export interface RunningSolana extends Part {
  rpcUrl: string;
  /** True when this process runs the local ledger; false for a configured cluster. */
  local: boolean;
}

export type SolanaSettings = Pick<Config, 'SOLANA_RPC_URL' | 'SOLANA_RPC_PORT' | 'DATA_DIR'>;

/** Answers when `rpcUrl` answers getHealth; throws naming the URL otherwise. */
export async function checkSolanaRpc(rpcUrl: string): Promise<void> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
      signal: AbortSignal.timeout(10_000),
    });
    const answer = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (answer.result !== 'ok') throw new Error(answer.error?.message ?? `getHealth answered ${JSON.stringify(answer)}`);
  } catch (error) {
    throw new Error(`Solana RPC ${rpcUrl} unreachable or unhealthy: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** `npm start`'s Solana: SOLANA_RPC_URL, or the local ledger (`ledger` overrides its options: tests). */
export async function startSolana(settings: SolanaSettings, logger: Logger, ledger: SolanaLedgerOptions = {}): Promise<RunningSolana> {
  if (settings.SOLANA_RPC_URL) {
    await checkSolanaRpc(settings.SOLANA_RPC_URL);
    logger.info({ rpcUrl: settings.SOLANA_RPC_URL }, 'configured Solana cluster reachable');
    return { name: 'solana', rpcUrl: settings.SOLANA_RPC_URL, local: false, stop: async () => undefined };
  }
  const running = await startSolanaLedger({ port: settings.SOLANA_RPC_PORT, stateDirectory: path.join(settings.DATA_DIR, 'solana'), ...ledger });
  logger.info({ rpcUrl: running.rpcUrl, slot: running.ledger.slot }, 'local Solana ledger running');
  return { name: 'solana', rpcUrl: running.rpcUrl, local: true, stop: () => running.stop() };
}

/** The issuer's Solana accounts for the catalogue, derived from the Solana signer key (configured, or the development one). */
export function solanaAccountsOf(settings: { keys: SignerKeys; dataDir: string }): Promise<SolanaAccountsContext> {
  return deriveSolanaAccounts({ issuerSecretKey: issuerSolanaSecretKey(settings), symbols: CATALOGUE.map((asset) => asset.symbol) });
}

/** The stock mints as the product's token addresses on solana-900 (`/v1/assets/.../addresses`, the reserves), replacing the catalogue's placeholders. */
export async function recordSolanaMints(db: Queryable, accounts: SolanaAccountsContext): Promise<void> {
  await recordTokenAddresses(db, SOLANA_CHAIN, Object.fromEntries(accounts.mints), accounts.tokenDecimals);
}

/**
 * Registers the set-up's nonce accounts into the pool table, each free with the value the ledger shows now (at
 * `confirmed`, as the set-up waited for); an account already in the pool keeps its row: what it holds is the pool's.
 */
export async function registerNoncePool(db: Queryable, chain: Pick<SolanaStackChain, 'rpcUrl' | 'mintAuthority' | 'noncePool'>): Promise<number> {
  const ledger = rpcNonceLedger(chain.rpcUrl, 'confirmed');
  const accounts = await Promise.all(
    chain.noncePool.map(async (address) => {
      const nonce = await ledger.readNonce(address as Address);
      if (nonce === undefined) throw new Error(`Solana set-up: nonce account ${address} is not initialised on ${chain.rpcUrl}`);
      return { address, authority: chain.mintAuthority, nonce };
    }),
  );
  return addNonceAccounts(db, accounts);
}
