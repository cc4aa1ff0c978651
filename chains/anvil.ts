/**
 * Local EVM chains: starts an `anvil` process (the binary from the npm package `@foundry-rs/anvil`)
 * and stops it by process id. Also the well-known anvil development accounts, and how the product's local chains
 * produce blocks (`LOCAL_CHAIN_MINING`).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { bytesToHex, type Address, type Hex, type LocalAccount } from 'viem';

/** The mnemonic anvil derives its funded development accounts from (public: never use it on a real chain). */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

export interface DevAccount {
  address: Address;
  privateKey: Hex;
}

/** The `index`-th funded anvil development account (m/44'/60'/0'/0/index of `ANVIL_MNEMONIC`). */
export function anvilDevAccount(index: number): DevAccount {
  const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
  const privateKey = account.getHdKey().privateKey;
  if (!privateKey) throw new Error(`no private key derived for anvil account ${index}`);
  return { address: account.address, privateKey: bytesToHex(privateKey) };
}

/** anvil's development account `index` as a signing account: 0 is the issuer on local chains, 1–3 the development wallets. */
export function anvilAccount(index: number): LocalAccount & { privateKey: Hex } {
  const { privateKey } = anvilDevAccount(index);
  return Object.assign(privateKeyToAccount(privateKey), { privateKey });
}

export interface StartAnvilParameters {
  chainId: number;
  /** Port to listen on; a free port chosen by the system when omitted. */
  port?: number;
  /** Keeps the chain across restarts: loaded at start when present, written at stop (and every `stateIntervalSeconds`). */
  stateFile?: string;
  stateIntervalSeconds?: number;
  /** Seconds between blocks (fractions allowed); every transaction is mined at once when omitted (automine). */
  blockTimeSeconds?: number;
  /** With `blockTimeSeconds`: also mine each transaction at once, as automine does (anvil's mixed mining). */
  mineTransactionsAtOnce?: boolean;
  /** Slots per epoch (default 32): the `safe` block trails the head by one epoch, `finalized` by two. */
  slotsInAnEpoch?: number;
  /** Mnemonic of the funded development accounts (default `ANVIL_MNEMONIC`). */
  mnemonic?: string;
  /** Funded development accounts (default 10) and their balance in ether (default 10,000). */
  accounts?: number;
  balanceEther?: number;
  /** How long to wait for the RPC to answer (default 30 s). */
  startTimeoutMs?: number;
}

/**
 * How the local chains of `npm start`, the tests and the benchmarks produce blocks, like a real chain with a short
 * finality: a block every 0.5 s (and each transaction mined at once, so flows stay fast), two slots per epoch —
 * `safe` two blocks below the head, `finalized` four (about 2 s).
 */
export const LOCAL_CHAIN_MINING = { blockTimeSeconds: 0.5, mineTransactionsAtOnce: true, slotsInAnEpoch: 2 } as const satisfies Partial<StartAnvilParameters>;

export interface RunningAnvil {
  rpcUrl: string;
  chainId: number;
  pid: number;
  /** Stops the process (SIGTERM, so anvil writes its state file; SIGKILL after 5 s) and resolves once it has exited. */
  stop(): Promise<void>;
  /** Kills the process at once (SIGKILL): a last resort. */
  kill(): void;
}
export type StartAnvilReturnType = RunningAnvil;

export class AnvilStartError extends Error {
  override readonly name = 'AnvilStartError';
}

/** The anvil binary of this platform, from the npm package `@foundry-rs/anvil-<os>-<arch>`. */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const packageName = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    return path.join(path.dirname(require.resolve(`${packageName}/package.json`)), 'bin', 'anvil');
  } catch (error) {
    throw new AnvilStartError(`anvil is not installed for ${process.platform}-${process.arch} (${packageName})`, { cause: error });
  }
}

const STOP_GRACE_MS = 5_000;
const STDERR_KEPT = 8_192;

/**
 * Starts anvil and resolves once its RPC answers `eth_chainId` with `chainId`. On failure the
 * process is killed and the error carries anvil's stderr.
 */
export async function startAnvil(parameters: StartAnvilParameters): Promise<StartAnvilReturnType> {
  const args = [
    '--chain-id', String(parameters.chainId),
    '--port', String(parameters.port ?? 0),
    '--host', '127.0.0.1',
    '--accounts', String(parameters.accounts ?? 10),
    '--balance', String(parameters.balanceEther ?? 10_000),
    '--mnemonic', parameters.mnemonic ?? ANVIL_MNEMONIC,
  ];
  if (parameters.stateFile !== undefined) args.push('--state', parameters.stateFile);
  if (parameters.stateIntervalSeconds !== undefined) args.push('--state-interval', String(parameters.stateIntervalSeconds));
  if (parameters.blockTimeSeconds !== undefined) args.push('--block-time', String(parameters.blockTimeSeconds));
  if (parameters.mineTransactionsAtOnce) args.push('--mixed-mining');
  if (parameters.slotsInAnEpoch !== undefined) args.push('--slots-in-an-epoch', String(parameters.slotsInAnEpoch));

  // Its own process group: a terminal's Ctrl-C reaches only the parent, which stops the chain last, by pid.
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failure = (message: string, cause?: unknown) =>
    new AnvilStartError(`${message}${stderr ? `\nanvil stderr:\n${stderr.trim()}` : ''}`, { cause });

  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(child.pid as number, name);
    } catch (error) {
      // ESRCH: it exited between the check and the signal.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  // Whatever ends this process first (an error, a forced exit), the chain is told to stop too.
  const stopOnExit = (): void => {
    if (child.pid !== undefined && !hasExited()) signal('SIGTERM');
  };
  process.on('exit', stopOnExit);
  void exited.then(() => process.off('exit', stopOnExit));
  const stop = async (): Promise<void> => {
    if (child.pid === undefined || hasExited()) return;
    signal('SIGTERM');
    const timer = setTimeout(() => {
      if (!hasExited()) signal('SIGKILL');
    }, STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
  const kill = (): void => {
    if (child.pid !== undefined && !hasExited()) signal('SIGKILL');
  };

  try {
    const rpcUrl = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(
        () => reject(failure(`anvil did not start listening within ${parameters.startTimeoutMs ?? 30_000} ms`)),
        parameters.startTimeoutMs ?? 30_000,
      );
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout = (stdout + chunk).slice(-STDERR_KEPT);
        const listening = /Listening on ([\d.]+):(\d+)/.exec(stdout);
        if (listening) {
          clearTimeout(timer);
          resolve(`http://${listening[1]}:${listening[2]}`);
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(failure('anvil could not be started', error));
      });
      // 'close' comes after stderr has been read to its end, so the error carries all of it.
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        reject(failure(`anvil exited before listening (code ${code}, signal ${signal})`));
      });
    });
    child.stdout.resume();
    await expectChainId(rpcUrl, parameters.chainId).catch((error: unknown) => {
      throw failure(`anvil at ${rpcUrl} did not answer as chain ${parameters.chainId}`, error);
    });
    return { rpcUrl, chainId: parameters.chainId, pid: child.pid as number, stop, kill };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function expectChainId(rpcUrl: string, chainId: number): Promise<void> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  });
  const body = (await response.json()) as { result?: string };
  if (body.result === undefined || BigInt(body.result) !== BigInt(chainId)) {
    throw new Error(`eth_chainId answered ${JSON.stringify(body)}`);
  }
}
