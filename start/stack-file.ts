/** .data/stack.json: where a running stack tells tools and people how to reach its parts. */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Queryable } from '../db/pool';
import { chainTokenAddresses, type ChainDeploymentRecord } from '../db/queries/chain-deployments';
import type { RunningChains } from './chains';
import type { DevKeys } from './dev-keys';

export interface StackFile {
  api: string;
  /** The development keys (absent when npm start made none: DATABASE_URL without DEVELOPMENT_KEYS). */
  keys?: DevKeys;
  database: string;
  temporal?: { address: string; namespace: string; kind: string };
  [part: string]: unknown;
}

export function stackFilePath(dataDir: string): string {
  return path.join(dataDir, 'stack.json');
}

export function readStackFile(dataDir: string): Partial<StackFile> | undefined {
  try {
    return JSON.parse(readFileSync(stackFilePath(dataDir), 'utf8')) as Partial<StackFile>;
  } catch {
    return undefined;
  }
}

/** Writes atomically (temp file, then rename), readable only by the owner: it holds key secrets. */
export function writeStackFile(dataDir: string, stack: StackFile): void {
  mkdirSync(dataDir, { recursive: true });
  const target = stackFilePath(dataDir);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, target);
}

export interface StackChain {
  rpcUrl: string;
  chainId: number;
  contracts: { tokenManager: string; issuer: string; registry: string; stablecoin: string; tokens: Record<string, string> };
}

/** The "chains" part: per chain its RPC URL, id and contracts, keyed like `ethereum-1`. */
export async function stackChains(db: Queryable, chains: RunningChains, deployments: ChainDeploymentRecord[]): Promise<Record<string, StackChain>> {
  const entries = await Promise.all(
    deployments.map(async (deployment): Promise<[string, StackChain]> => [
      deployment.chain,
      {
        rpcUrl: chains.chains[deployment.chain as keyof typeof chains.chains]!.network.rpcUrl,
        chainId: deployment.chainId,
        contracts: {
          tokenManager: deployment.tokenManager,
          issuer: deployment.issuer,
          registry: deployment.registry,
          stablecoin: deployment.stablecoin,
          tokens: await chainTokenAddresses(db, deployment.chain),
        },
      },
    ]),
  );
  return Object.fromEntries(entries);
}
