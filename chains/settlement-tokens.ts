/**
 * The settlement token (stablecoin) of each EVM chain's deployment, with its decimals read once from the chain: what
 * an integrator approves before a mint and is paid in by a redemption (published with the attestation signers).
 */
import { getAddress } from 'viem';
import { stablecoinAbi } from '../contracts/abi';
import type { ChainDeploymentRecord } from '../db/queries/chain-deployments';
import { isEvmChain, type EvmChain } from '../domain/chains';
import type { ChainContexts } from './context';

export interface SettlementToken {
  address: `0x${string}`;
  decimals: number;
}

export type SettlementTokens = Partial<Record<EvmChain, SettlementToken>>;

/**
 * Reads the settlement tokens of `deployments` on the chains this process reaches; a chain it does not reach, or
 * whose token does not answer, is left out (and asked again next time). Decimals are kept per token address.
 */
export function settlementTokenReader(chains: ChainContexts): (deployments: readonly ChainDeploymentRecord[]) => Promise<SettlementTokens> {
  const decimalsOf = new Map<string, number>();
  const read = async (chain: EvmChain, address: `0x${string}`): Promise<number | undefined> => {
    const key = `${chain}:${address.toLowerCase()}`;
    const known = decimalsOf.get(key);
    if (known !== undefined) return known;
    const client = chains[chain]?.client;
    if (!client) return undefined;
    try {
      const decimals = Number(await client.readContract({ address, abi: stablecoinAbi, functionName: 'decimals' }));
      decimalsOf.set(key, decimals);
      return decimals;
    } catch {
      // No contract there, or the RPC is down: not published this time.
      return undefined;
    }
  };
  return async (deployments) => {
    const tokens: SettlementTokens = {};
    await Promise.all(
      deployments.map(async ({ chain, stablecoin }) => {
        if (!isEvmChain(chain)) return;
        const decimals = await read(chain, stablecoin);
        if (decimals !== undefined) tokens[chain] = { address: getAddress(stablecoin), decimals };
      }),
    );
    return tokens;
  };
}
