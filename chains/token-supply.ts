/** A token's total supply at a block, read on chain. */
import { ContractFunctionExecutionError, ContractFunctionZeroDataError, type PublicClient } from 'viem';
import { stockTokenAbi } from '../contracts/abi';

/**
 * A token's supply at `block`: zero while the token had no code there yet — a fresh deployment's tokens land in the
 * blocks after its first one (the deployment block read until the watcher has a final block past them), and a token
 * not deployed yet has minted nothing. A token with code that answers no data is an error still.
 */
export async function tokenSupplyAt(client: PublicClient, token: `0x${string}`, block: number): Promise<bigint> {
  try {
    return (await client.readContract({ address: token, abi: stockTokenAbi, functionName: 'totalSupply', blockNumber: BigInt(block) })) as bigint;
  } catch (error) {
    if (!(error instanceof ContractFunctionExecutionError && error.cause instanceof ContractFunctionZeroDataError)) throw error;
    const code = await client.getCode({ address: token, blockNumber: BigInt(block) });
    if (code === undefined || code === '0x') return 0n;
    throw error;
  }
}
