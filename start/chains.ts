/**
 * The EVM chains of `npm start`: the configured RPC endpoints (RPC_URL_<CHAIN>, with CHAIN_ISSUER_PRIVATE_KEY), or
 * else a local anvil chain per EVM chain of domain/chains.ts (on ANVIL_PORT_<CHAIN>, a block every 0.5 s and a short finality:
 * `LOCAL_CHAIN_MINING`) whose state is kept under DATA_DIR/chains, so a restart finds the same contracts and balances; a chain an earlier, killed run left behind
 * is stopped first (pid files beside the state). Every endpoint is checked before anything uses it: an unreachable
 * one stops the start with its URL named.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex, LocalAccount } from 'viem';
import { ANVIL_MNEMONIC, anvilDevAccount, LOCAL_CHAIN_MINING, startAnvil, type RunningAnvil } from '../chains/anvil';
import { chainContexts, type IssuerChains } from '../chains/context';
import { chainFinality } from '../chains/finality';
import { checkRpc, evmNetwork, type EvmNetwork } from '../chains/networks';
import type { Config } from '../config';
import type { Logger } from '../config/logger';
import { chainVariables, EVM_CHAINS, type ChainVariable } from '../domain/chains';

export interface RunningChains extends IssuerChains {
  networks: EvmNetwork[];
  /** True when this process runs the chains (anvil); false for configured RPC endpoints. */
  local: boolean;
  stop(): Promise<void>;
  /** Kills the local chains at once (a last resort). */
  kill(): void;
}

export type ChainSettings = Pick<Config, ChainVariable | 'CHAIN_ISSUER_PRIVATE_KEY' | 'DATA_DIR'>;

/** anvil's development account `index` as a signing account: 0 is the issuer on local chains, 1–3 the development wallets. */
export function anvilAccount(index: number): LocalAccount & { privateKey: Hex } {
  const { privateKey } = anvilDevAccount(index);
  return Object.assign(privateKeyToAccount(privateKey), { privateKey });
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

export async function startChains(settings: ChainSettings, logger: Logger): Promise<RunningChains> {
  const configured = EVM_CHAINS.flatMap((chain) => {
    const rpcUrl = settings[chainVariables(chain).rpcUrl];
    return rpcUrl ? [evmNetwork(chain, rpcUrl)] : [];
  });
  if (configured.length > 0) {
    if (!settings.CHAIN_ISSUER_PRIVATE_KEY) {
      const variables = EVM_CHAINS.map((chain) => chainVariables(chain).rpcUrl).join(' / ');
      throw new Error(`invalid configuration: CHAIN_ISSUER_PRIVATE_KEY: required with ${variables} (the issuer deploys and signs there)`);
    }
    const networks = configured;
    for (const network of networks) await checkRpc(network);
    logger.info({ chains: networks.map((network) => `${network.chain} ${network.rpcUrl}`) }, 'configured chains reachable');
    return {
      networks,
      chains: chainContexts(networks, chainFinality(settings)),
      issuer: privateKeyToAccount(settings.CHAIN_ISSUER_PRIVATE_KEY),
      local: false,
      stop: async () => undefined,
      kill: () => undefined,
    };
  }

  const stateDirectory = path.join(settings.DATA_DIR, 'chains');
  mkdirSync(stateDirectory, { recursive: true });
  const running: RunningAnvil[] = [];
  const stop = async () => {
    await Promise.all(running.map((anvil) => anvil.stop()));
    for (const chain of EVM_CHAINS) rmSync(path.join(stateDirectory, `${chain}.pid`), { force: true });
  };
  try {
    for (const chain of EVM_CHAINS) {
      const network = evmNetwork(chain, '');
      const pidFile = path.join(stateDirectory, `${chain}.pid`);
      await stopLeftoverChain(pidFile, logger);
      const anvil = await startAnvil({
        chainId: network.chainId,
        port: settings[chainVariables(chain).anvilPort],
        stateFile: path.join(stateDirectory, `${chain}.json`),
        mnemonic: ANVIL_MNEMONIC,
        ...LOCAL_CHAIN_MINING,
      });
      running.push(anvil);
      writeFileSync(pidFile, `${anvil.pid}\n`);
    }
    const networks = EVM_CHAINS.map((chain, index) => evmNetwork(chain, running[index]!.rpcUrl));
    for (const network of networks) await checkRpc(network);
    logger.info({ chains: networks.map((network) => `${network.chain} ${network.rpcUrl}`) }, 'local anvil chains running');
    return {
      networks,
      chains: chainContexts(networks, chainFinality(settings)),
      issuer: settings.CHAIN_ISSUER_PRIVATE_KEY ? privateKeyToAccount(settings.CHAIN_ISSUER_PRIVATE_KEY) : anvilAccount(0),
      local: true,
      stop,
      kill: () => running.forEach((anvil) => anvil.kill()),
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
