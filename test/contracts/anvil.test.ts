/** Local chains: anvil starts on a free port, keeps its state across a restart, stops by pid, and says why it failed. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AnvilStartError, anvilDevAccount, startAnvil, type RunningAnvil } from '../../chains/anvil';
import { deployContracts } from '../../chains/deploy';

const started: RunningAnvil[] = [];
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'anvil-test-'));
});

afterAll(async () => {
  await Promise.all(started.map((anvil) => anvil.stop()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(parameters: Parameters<typeof startAnvil>[0]): Promise<RunningAnvil> {
  const anvil = await startAnvil(parameters);
  started.push(anvil);
  return anvil;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('anvil', () => {
  it('runs two chains side by side on free ports with their own chain ids', async () => {
    const [ethereum, bsc] = await Promise.all([start({ chainId: 1 }), start({ chainId: 56 })]);
    expect(ethereum!.rpcUrl).not.toBe(bsc!.rpcUrl);
    expect(await createPublicClient({ transport: http(ethereum!.rpcUrl) }).getChainId()).toBe(1);
    expect(await createPublicClient({ transport: http(bsc!.rpcUrl) }).getChainId()).toBe(56);
    expect(await createPublicClient({ transport: http(bsc!.rpcUrl) }).getBalance({ address: anvilDevAccount(3).address })).toBe(
      10_000n * 10n ** 18n,
    );
  });

  it('finds the same contracts after a restart on its state file, and is gone once stopped', async () => {
    const stateFile = path.join(dataDir, 'bsc-56.json');
    const first = await start({ chainId: 56, stateFile });
    const deployed = await deployContracts({
      rpcUrl: first.rpcUrl,
      chainId: 56,
      deployer: privateKeyToAccount(anvilDevAccount(0).privateKey),
      tokens: [{ symbol: 'AAPLon', name: 'Apple (tokenized)' }],
      attestationSigner: anvilDevAccount(1).address,
    });
    await first.stop();
    expect(isRunning(first.pid)).toBe(false);

    const second = await start({ chainId: 56, stateFile });
    const client = createPublicClient({ transport: http(second.rpcUrl) });
    expect(await client.getCode({ address: deployed.tokenManager })).toMatch(/^0x[0-9a-f]{100,}$/);
    expect(await client.getCode({ address: deployed.tokens.AAPLon! })).toMatch(/^0x[0-9a-f]{100,}$/);
  });

  it("fails with anvil's own complaint when it cannot start", async () => {
    const stateFile = path.join(dataDir, 'not-a-state.json');
    writeFileSync(stateFile, 'this is not json');
    const failure = startAnvil({ chainId: 1, stateFile });
    await expect(failure).rejects.toBeInstanceOf(AnvilStartError);
    await expect(failure).rejects.toThrow(/exited before listening[\s\S]*anvil stderr:[\s\S]*--state/);
  });
});
