/**
 * The campaign's checks against a running product as its stack.json describes it: the EVM chains and the Solana ledger
 * it names read for invariant 7, their heads for the watchers of invariant 6; what `npm run campaign:check` and each
 * seed of `npm run campaign` run.
 */
import type { Client } from '@temporalio/client';
import { createPublicClient, http, type PublicClient } from 'viem';
import type { Queryable } from '../db/pool';
import { EVM_CHAINS, SOLANA_CHAIN, type EvmChain } from '../domain/chains';
import type { StackFile } from '../start/stack-file';
import { checkCampaign, type CampaignCheck } from './invariants';
import type { LimitCaps } from './limits-invariant';
import { stackChainHeads } from './liveness';
import type { SolanaTreasury } from './solana-stablecoin';

type Stack = Partial<StackFile> | undefined;

/** The public clients of the EVM chains stack.json names. */
function stackChainClients(stack: Stack): Partial<Record<EvmChain, PublicClient>> | undefined {
  const chains = stack?.chains as Record<string, { rpcUrl?: string }> | undefined;
  if (!chains) return undefined;
  const clients: Partial<Record<EvmChain, PublicClient>> = {};
  for (const chain of EVM_CHAINS) {
    const rpcUrl = chains[chain]?.rpcUrl;
    if (rpcUrl) clients[chain] = createPublicClient({ transport: http(rpcUrl) });
  }
  return clients;
}

/** The Solana ledger and treasury stack.json names (npm start's set-up writes them), if it does. */
function stackSolana(stack: Stack): SolanaTreasury | undefined {
  const solana = (stack?.chains as Record<string, Partial<SolanaTreasury>> | undefined)?.[SOLANA_CHAIN];
  if (!solana?.rpcUrl || !solana.treasury || !solana.stablecoinMint) return undefined;
  return { rpcUrl: solana.rpcUrl, treasury: solana.treasury, stablecoinMint: solana.stablecoinMint };
}

/** Every invariant of the stored history, the chains and ledger stack.json names, and liveness given `temporal`. */
export function checkStack(db: Queryable, stack: Stack, options: { caps: LimitCaps; temporal?: Client }): Promise<CampaignCheck> {
  return checkCampaign(db, { caps: options.caps, chains: stackChainClients(stack), solana: stackSolana(stack), temporal: options.temporal, heads: stackChainHeads(stack) });
}
