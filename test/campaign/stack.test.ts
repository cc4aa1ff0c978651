/**
 * The campaign's stack (campaign/stack.ts), started once: the product in its production shape (the durable Temporal
 * service, two APIs, two workers and the feed as OS processes; PostgreSQL, both anvil chains, the Solana ledger and
 * the brokerage sandbox in the test process). A write key gets an attestation through each API on ethereum-1, bsc-56
 * and solana-900. Then each kind of fault once, each healed, the product answering again after it: an API, a worker,
 * the feed and the Temporal service killed (SIGKILL) and restarted on their ports; PostgreSQL's sessions terminated,
 * then the server restarted on its data; a reorganisation within the room below finality on ethereum-1 (a
 * transaction of the top blocks dropped, the final block kept); the broker failing behind the workers' proxy; the APIs' link to PostgreSQL cut
 * (503 with Retry-After meanwhile). The attestations made have their workflows on the Temporal service, and
 * `npm run campaign:check` finds the database and the chains through the stack.json written under the data directory.
 * Everything is stopped whatever happens.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { anvilAccount } from '../../chains/anvil';
import { quietLogger } from '../../harness/settings';
import { startCampaignStack, type CampaignStack } from '../../campaign/stack';
import { attestationWorkflowId } from '../../temporal/workflow-ids';
import { call, openLimits, ownDataDir, type Answer } from '../support/database-outage';
import { eventually } from '../support/eventually';

jest.setTimeout(600_000);

const data = ownDataDir('issuer-campaign-stack-');
let stack: CampaignStack | undefined;
const made: string[] = [];

beforeAll(async () => {
  stack = await startCampaignStack({ dataDir: data.path, logger: quietLogger() });
  await openLimits(`${stack.target.apiUrls[0]}/v1`, stack.target.stack.keys!.admin);
}, 400_000);

afterAll(async () => {
  await stack?.stop();
  data.remove();
}, 120_000);

const EVM_CHAINS = ['ethereum-1', 'bsc-56'] as const;

function attest(api: string, chainId: string): Promise<Answer> {
  const solana = chainId === 'solana-900' ? { userAddress: (stack!.target.stack.solanaWallets as { address: string }[])[0]!.address } : {};
  return call(`${api}/v1/attestations`, stack!.target.stack.keys!.write, { symbol: 'SPYon', side: 'buy', tokenAmount: '0.01', duration: 'short', chainId, ...solana }).catch(
    (error: unknown): Answer => ({ status: 0, retryAfter: null, body: { code: String(error) } }),
  );
}

/** Each API makes an attestation again (on ethereum-1), however long the product takes to come back (bounded). */
async function answering(after: string): Promise<void> {
  for (const api of stack!.target.apiUrls) {
    let last: Answer | undefined;
    try {
      await eventually(async () => {
        last = await attest(api, 'ethereum-1');
        expect(last.status).toBe(200);
      }, 120_000);
    } catch (error) {
      throw new Error(`${api} not answering after ${after}: last ${JSON.stringify(last)}\n${stack!.output()}`, { cause: error });
    }
    made.push(last!.body.attestationId as string);
  }
}

test('a write key gets an attestation through each API on ethereum-1, bsc-56 and solana-900', async () => {
  expect(stack!.target.apiUrls).toHaveLength(2);
  for (const api of stack!.target.apiUrls) {
    for (const chainId of [...EVM_CHAINS, 'solana-900']) {
      const answer = await attest(api, chainId);
      expect([api, chainId, answer.status, answer.body?.code]).toEqual([api, chainId, 200, undefined]);
      made.push(answer.body.attestationId as string);
    }
  }
});

test.each(['api-1', 'worker-1', 'feed', 'temporal'])('%s killed and restarted on its ports: the product answers again', async (name) => {
  const role = stack!.faults.processes.find((process) => process.name === name)!;
  await role.kill();
  expect(role.running()).toBe(false);
  await role.restart();
  expect(role.running()).toBe(true);
  await answering(`${name} restarted`);
});

test("PostgreSQL's sessions terminated, then the server restarted on its data: the product answers again", async () => {
  expect(await stack!.faults.database.terminateConnections()).toBeGreaterThan(0);
  await answering('the sessions terminated');
  await stack!.faults.database.restart(1_000);
  await answering('PostgreSQL restarted');
});

test('a reorganisation within the room below finality drops a transaction of the top blocks of ethereum-1, never the final block', async () => {
  const chain = stack!.faults.chains.find((entry) => entry.chain === 'ethereum-1')!;
  const rpcUrl = (stack!.target.stack.chains as Record<string, { rpcUrl: string }>)['ethereum-1']!.rpcUrl;
  const rpc = async <T>(method: string, params: unknown[]): Promise<T> => {
    const response = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return ((await response.json()) as { result: T }).result;
  };
  const block = async (tag: string | number) => {
    const found = await rpc<{ number: string; hash: string }>('eth_getBlockByNumber', [typeof tag === 'number' ? `0x${tag.toString(16)}` : tag, false]);
    return { number: Number(found.number), hash: found.hash };
  };
  const room = await chain.maxReorgDepth();
  expect(room).toBeGreaterThanOrEqual(1);
  await expect(chain.reorg(room + 50)).rejects.toThrow(/would reach its final block/);
  const finalBefore = await block('finalized');
  // A transfer of anvil's (unlocked) account 9, which the product does not use, mined at once; then the top blocks
  // replaced. The chain mines on meanwhile: should the transfer's block have sunk below the room, it is tried again.
  const sender = anvilAccount(9).address;
  let dropped = false;
  for (let attempt = 0; attempt < 5 && !dropped; attempt++) {
    const hash = await rpc<string>('eth_sendTransaction', [{ from: sender, to: sender, value: '0x0' }]);
    const receipt = await eventually(async () => {
      const found = await rpc<{ blockNumber: string; blockHash: string } | null>('eth_getTransactionReceipt', [hash]);
      expect(found).not.toBeNull();
      return found!;
    });
    await chain.reorg(await chain.maxReorgDepth());
    dropped = (await rpc('eth_getTransactionReceipt', [hash])) === null && (await block(Number(receipt.blockNumber))).hash !== receipt.blockHash;
  }
  expect(dropped).toBe(true);
  expect((await block(finalBefore.number)).hash).toBe(finalBefore.hash);
  await answering('a reorganisation');
});

test("the broker failing behind the workers' proxy answers 503 without reaching the sandbox; healed, the sandbox answers", async () => {
  const broker = stack!.target.stack.broker as { key: string; secret: string; accounts: { accountId: string }[] };
  const account = () =>
    fetch(`${stack!.brokerUrl}/v1/accounts/${broker.accounts[0]!.accountId}`, {
      headers: { authorization: `Basic ${Buffer.from(`${broker.key}:${broker.secret}`).toString('base64')}` },
    });
  stack!.faults.broker.set({ kind: 'failing', status: 503 });
  const failing = await account();
  expect([failing.status, failing.headers.get('retry-after')]).toEqual([503, '1']);
  stack!.faults.broker.set(undefined);
  const healed = await account();
  expect(healed.status).toBe(200);
  expect(((await healed.json()) as { account_id?: string; id?: string }).account_id ?? '').toBe(broker.accounts[0]!.accountId);
  await answering('the broker failing');
});

test("the APIs' link to PostgreSQL cut: 503 with Retry-After meanwhile; healed, the product answers again", async () => {
  const link = stack!.faults.links.find((entry) => entry.name === 'apis→postgresql')!;
  link.set({ dropRate: 1 });
  try {
    await eventually(async () => {
      const answer = await attest(stack!.target.apiUrls[0]!, 'ethereum-1');
      expect([answer.status, answer.body?.code, answer.retryAfter === null]).toEqual([503, 'SERVICE_UNAVAILABLE', false]);
    }, 60_000);
  } finally {
    link.set(undefined);
  }
  await answering('the link healed');
});

test('every attestation made has its workflow on the Temporal service', async () => {
  expect(made.length).toBeGreaterThanOrEqual(6);
  for (const attestationId of made) {
    await eventually(async () => {
      const described = await stack!.temporal.workflow.getHandle(attestationWorkflowId(attestationId)).describe();
      expect(described.workflowId).toBe(attestationWorkflowId(attestationId));
    }, 60_000);
  }
});

test('npm run campaign:check finds the database and the chains through <dataDir>/stack.json and checks them', async () => {
  const root = path.join(__dirname, '..', '..');
  const checked = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'campaign/check.ts')],
      { cwd: root, env: { PATH: process.env.PATH, DATA_DIR: data.path }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
  // 2 would be "could not check" (no database, a chain unreachable); what the history holds is the campaign's to judge.
  expect([checked.code === 2, checked.stdout.trim().split('\n').pop(), checked.stderr]).toEqual([false, expect.stringMatching(/^\d+ violations?$/), '']);
});
