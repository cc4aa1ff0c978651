/**
 * The campaign's stack (campaign/stack.ts), started once: the product in its production shape (the durable Temporal
 * service, two APIs, two workers and the feed as OS processes; PostgreSQL, both anvil chains, the Solana ledger and
 * the brokerage sandbox in the test process). A write key gets an attestation through each API on ethereum-1, bsc-56
 * and solana-900. Then each kind of fault once, each healed, the product answering again after it: an API, a worker,
 * the feed and the Temporal service killed (SIGKILL) and restarted on their ports; PostgreSQL's sessions terminated,
 * then the server restarted on its data; a reorganisation within the room below finality on ethereum-1 (the blocks
 * replaced, the final block kept); the broker failing behind the workers' proxy; the APIs' link to PostgreSQL cut
 * (503 with Retry-After meanwhile). The attestations made have their workflows on the Temporal service.
 * Everything is stopped whatever happens.
 */
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

test('a reorganisation within the room below finality replaces the top blocks of ethereum-1, never the final one', async () => {
  const chain = stack!.faults.chains.find((entry) => entry.chain === 'ethereum-1')!;
  const rpcUrl = (stack!.target.stack.chains as Record<string, { rpcUrl: string }>)['ethereum-1']!.rpcUrl;
  const block = async (tag: string | number) => {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [typeof tag === 'number' ? `0x${tag.toString(16)}` : tag, false] }),
    });
    const { result } = (await response.json()) as { result: { number: string; hash: string } };
    return { number: Number(result.number), hash: result.hash };
  };
  const room = await chain.maxReorgDepth();
  expect(room).toBeGreaterThanOrEqual(1);
  await expect(chain.reorg(room + 50)).rejects.toThrow(/would reach its final block/);
  const finalBefore = await block('finalized');
  // The chain mines on meanwhile: a block mined between reading the head and the reorganisation is the one replaced.
  let replaced = false;
  for (let attempt = 0; attempt < 5 && !replaced; attempt++) {
    const head = await block('latest');
    await chain.reorg(1);
    replaced = (await block(head.number)).hash !== head.hash;
  }
  expect(replaced).toBe(true);
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
