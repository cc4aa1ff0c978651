/**
 * The chains part: the EVM chains the product reaches — the configured RPC endpoints (RPC_URL_<CHAIN>, with
 * CHAIN_ISSUER_PRIVATE_KEY), or else a local anvil chain per EVM chain of domain/chains.ts — and the product's
 * contracts deployed on each (once: a restart finds them). Every endpoint is checked before anything uses it: an
 * unreachable one stops the start with its URL named.
 *
 * Local chains mine as `LOCAL_CHAIN_MINING` says (a block every 0.5 s, a short finality). `npm start` runs them on
 * ANVIL_PORT_<CHAIN> with their state kept under DATA_DIR/chains, so a restart finds the same contracts and balances;
 * a chain an earlier, killed run left behind is stopped first (pid files beside the state). The tests and benchmarks
 * run them on free ports, without state.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { ANVIL_MNEMONIC, anvilAccount, LOCAL_CHAIN_MINING, startAnvil, type RunningAnvil, type StartAnvilParameters } from '../chains/anvil';
import { chainContexts, type IssuerChains } from '../chains/context';
import { ensureDeployment } from '../chains/deployments';
import { chainFinality, type ChainFinality } from '../chains/finality';
import { checkRpc, evmNetwork, type EvmNetwork } from '../chains/networks';
import type { Config } from '../config';
import type { Logger } from '../config/logger';
import type { Database } from '../db/pool';
import type { ChainDeploymentRecord } from '../db/queries/chain-deployments';
import { CATALOGUE } from '../domain/catalogue';
import { chainVariables, EVM_CHAINS, type ChainVariable, type EvmChain } from '../domain/chains';
import type { Part } from './parts';

export interface RunningChains extends IssuerChains, Part {
  networks: EvmNetwork[];
  /** True when this process runs the chains (anvil); false for configured RPC endpoints. */
  local: boolean;
}

export type ChainSettings = Pick<Config, ChainVariable | 'CHAIN_ISSUER_PRIVATE_KEY' | 'DATA_DIR'>;

const rpcUrlVariables = () => EVM_CHAINS.map((chain) => chainVariables(chain).rpcUrl).join(' / ');

/** The chains their RPC_URL_<CHAIN> names, checked reachable, CHAIN_ISSUER_PRIVATE_KEY signing there; none configured: undefined. */
export async function configuredChains(settings: Omit<ChainSettings, 'DATA_DIR'>, logger: Logger): Promise<RunningChains | undefined> {
  const networks = EVM_CHAINS.flatMap((chain) => {
    const rpcUrl = settings[chainVariables(chain).rpcUrl];
    return rpcUrl ? [evmNetwork(chain, rpcUrl)] : [];
  });
  if (networks.length === 0) return undefined;
  if (!settings.CHAIN_ISSUER_PRIVATE_KEY) {
    throw new Error(`invalid configuration: CHAIN_ISSUER_PRIVATE_KEY: required with ${rpcUrlVariables()} (the issuer deploys and signs there)`);
  }
  for (const network of networks) await checkRpc(network);
  logger.info({ chains: networks.map((network) => `${network.chain} ${network.rpcUrl}`) }, 'configured chains reachable');
  return {
    name: 'chains',
    networks,
    chains: chainContexts(networks, chainFinality(settings)),
    issuer: privateKeyToAccount(settings.CHAIN_ISSUER_PRIVATE_KEY),
    local: false,
    stop: async () => undefined,
  };
}

export interface LocalChainsOptions {
  logger: Logger;
  /** Which EVM chains (default all of them). */
  chains?: readonly EvmChain[];
  /** Each chain's port; a chain without one gets a free port. */
  ports?: Partial<Record<EvmChain, number>>;
  /** Keeps each chain's state (and pid file) here across runs; unset: throw-away chains. */
  stateDirectory?: string;
  /** How blocks are produced (default `LOCAL_CHAIN_MINING`). */
  mining?: Pick<StartAnvilParameters, 'blockTimeSeconds' | 'mineTransactionsAtOnce' | 'slotsInAnEpoch'>;
  /** Each chain's finality rule (default: its `finalized` block). */
  finality?: Partial<Record<EvmChain, ChainFinality>>;
  /** The issuer's key (default: anvil's development account 0). */
  issuerKey?: Hex;
}

/** Starts local anvil chains; on any failure, stops those it started. */
export async function startLocalChains(options: LocalChainsOptions): Promise<RunningChains> {
  const { logger, stateDirectory } = options;
  const chains = options.chains ?? EVM_CHAINS;
  const pidFile = (chain: EvmChain) => path.join(stateDirectory!, `${chain}.pid`);
  if (stateDirectory) mkdirSync(stateDirectory, { recursive: true });
  const running: RunningAnvil[] = [];
  const stop = async () => {
    await Promise.all(running.map((anvil) => anvil.stop()));
    if (stateDirectory) for (const chain of chains) rmSync(pidFile(chain), { force: true });
  };
  try {
    for (const chain of chains) {
      if (stateDirectory) await stopLeftoverChain(pidFile(chain), logger);
      const anvil = await startAnvil({
        chainId: evmNetwork(chain, '').chainId,
        port: options.ports?.[chain],
        stateFile: stateDirectory && path.join(stateDirectory, `${chain}.json`),
        mnemonic: ANVIL_MNEMONIC,
        ...(options.mining ?? LOCAL_CHAIN_MINING),
      });
      running.push(anvil);
      if (stateDirectory) writeFileSync(pidFile(chain), `${anvil.pid}\n`);
    }
    const networks = chains.map((chain, index) => evmNetwork(chain, running[index]!.rpcUrl));
    for (const network of networks) await checkRpc(network);
    logger.info({ chains: networks.map((network) => `${network.chain} ${network.rpcUrl}`) }, 'local anvil chains running');
    return {
      name: 'chains',
      networks,
      chains: chainContexts(networks, options.finality),
      issuer: options.issuerKey ? privateKeyToAccount(options.issuerKey) : anvilAccount(0),
      local: true,
      stop,
      kill: () => running.forEach((anvil) => anvil.kill()),
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `npm start`'s chains: the configured ones, or else every EVM chain locally, on ANVIL_PORT_<CHAIN>, its state under DATA_DIR/chains. */
export async function startChains(settings: ChainSettings, logger: Logger): Promise<RunningChains> {
  return (
    (await configuredChains(settings, logger)) ??
    (await startLocalChains({
      logger,
      ports: Object.fromEntries(EVM_CHAINS.map((chain) => [chain, settings[chainVariables(chain).anvilPort]])),
      stateDirectory: path.join(settings.DATA_DIR, 'chains'),
      finality: chainFinality(settings),
      issuerKey: settings.CHAIN_ISSUER_PRIVATE_KEY,
    }))
  );
}

/**
 * The product's contracts on each of the chains (ensureDeployment: deployed once, reused while their code is there),
 * the attestation signer's key and the broker's signer (if any) granted their roles.
 */
export async function ensureDeployments(parameters: {
  db: Database;
  chains: RunningChains;
  attestationSigner: `0x${string}`;
  brokerSigner?: `0x${string}`;
  logger: Logger;
}): Promise<ChainDeploymentRecord[]> {
  const { chains, logger } = parameters;
  const deployments: ChainDeploymentRecord[] = [];
  for (const network of chains.networks) {
    const { deployment, deployed } = await ensureDeployment({
      db: parameters.db,
      context: chains.chains[network.chain]!,
      issuer: chains.issuer,
      attestationSigner: parameters.attestationSigner,
      brokerSigner: parameters.brokerSigner,
      assets: CATALOGUE,
    });
    deployments.push(deployment);
    logger.info({ chain: network.chain, tokenManager: deployment.tokenManager, issuer: deployment.issuer, deployed }, 'contracts ready');
  }
  return deployments;
}

/** Is `pid` a live process running anvil? */
function isAnvilProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!.endsWith('/anvil');
  } catch {
    return false;
  }
}

/**
 * A chain left running by an earlier run of this data directory that was killed (its children outlive a SIGKILL):
 * stopped with SIGTERM, so it writes its state, before a new one starts on the same port and state file.
 */
async function stopLeftoverChain(pidFile: string, logger: Logger): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 0 || !isAnvilProcess(pid)) return;
  logger.warn({ pid, pidFile }, 'stopping a chain left running by an earlier run of this data directory');
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; isAnvilProcess(pid); waited += 100) {
    if (waited >= 10_000) {
      process.kill(pid, 'SIGKILL');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
