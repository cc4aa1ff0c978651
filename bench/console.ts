/**
 * The console under volume: 100 000 workflows in the list (server-side paging, counts per status) and a workflow
 * whose history holds 10 000 events (signals a worker takes in, its state query answered), in the embedded Temporal
 * service in memory, with
 * the product's app and a signed-in session. Prints how long each page takes to render, server side, end to end.
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { migrate } from '../db/migrate';
import { createPool } from '../db/pool';
import { createApiKey } from '../db/queries/api-keys';
import { createConsoleSession } from '../db/queries/console';
import { defaultConfig, quietLogger } from '../harness/settings';
import { createProductApp } from '../start/api';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { startInMemoryTemporal } from '../temporal-server';
import { runWorker } from '../worker/run-worker';

export interface ConsoleBench {
  workflows: number;
  startMs: number;
  historyEvents: number;
  pages: { name: string; ms: number; bytes: number }[];
}

const WORKFLOWS = Number(process.env.BENCH_CONSOLE_WORKFLOWS ?? 100_000);
const EVENTS = 10_000;

export async function benchConsole(databaseUrl: string): Promise<ConsoleBench> {
  const db = createPool(databaseUrl, 4);
  const server = await startInMemoryTemporal();
  const client = await createTemporalClient({ address: server.address, namespace: server.namespace });
  const stops: (() => Promise<void>)[] = [];
  try {
    await migrate(db);
    const startedAt = performance.now();
    const types = ['attestationWorkflow', 'partnerMintWorkflow', 'redemptionWorkflow', 'walletRegistrationWorkflow'];
    // No worker: the runs stay RUNNING with their first task pending; a share is terminated to fill other statuses.
    for (let batch = 0; batch < WORKFLOWS; batch += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, WORKFLOWS - batch) }, (_, offset) => {
          const n = batch + offset;
          return client.workflow.start(types[n % types.length]!, { workflowId: `bench-${n}`, taskQueue: 'bench-console', args: [{ n }] });
        }),
      );
    }
    await Promise.all(Array.from({ length: Math.floor(WORKFLOWS / 50) }, (_, n) => client.workflow.getHandle(`bench-${n * 7}`).terminate('bench')));
    const startMs = performance.now() - startedAt;
    // One workflow a worker runs, signalled until its history holds 10 000 events; its state query answers.
    const worker = await runWorker({
      address: server.address,
      namespace: server.namespace,
      taskQueue: 'bench-console-big',
      activities: {},
      workflows: { workflowsPath: require.resolve('./console-workflows') },
      compress: false,
    });
    stops.push(() => worker.stop());
    const big = await client.workflow.start('benchSignalsWorkflow', { workflowId: 'bench-big-history', taskQueue: 'bench-console-big' });
    for (let n = 0; (await big.describe()).historyLength < EVENTS; n += 1) {
      await Promise.all(Array.from({ length: 200 }, (_, offset) => big.signal('tick', { n: n * 200 + offset })));
    }
    const historyEvents = (await big.describe()).historyLength;

    const { key } = await createApiKey(db, { name: 'bench console', scope: 'admin' });
    const sessionId = randomBytes(32).toString('base64url');
    await createConsoleSession(db, { sessionId, keyId: key.id, csrfToken: 'bench', ttlMs: 3_600_000 });
    const app = createProductApp({ config: defaultConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1' }), db, logger: quietLogger(), temporal: client });
    const http = request(app.koa.callback());
    const cookie = `console_session=${sessionId}`;
    const pages: ConsoleBench['pages'] = [];
    const time = async (name: string, path: string): Promise<string> => {
      let best = Infinity;
      let text = '';
      for (let run = 0; run < 3; run += 1) {
        const before = performance.now();
        const answer = await http.get(path).set('cookie', cookie);
        best = Math.min(best, performance.now() - before);
        if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
        text = answer.text;
      }
      pages.push({ name, ms: best, bytes: Buffer.byteLength(text) });
      return text;
    };
    const first = await time('workflows, first page of 50 with the 7 counts', '/console/workflows');
    const next = /rel="next" href="([^"]+)"/.exec(first)?.[1]?.replace(/&amp;/g, '&');
    if (next) await time('workflows, next page', next);
    await time('workflows, status TERMINATED', '/console/workflows?status=TERMINATED');
    await time('workflows, id prefix bench-9999', '/console/workflows?prefix=bench-9999');
    await time(`workflow page, ${historyEvents} events, steps page 1`, '/console/workflows/bench-big-history');
    await time(`workflow page, ${historyEvents} events, raw page 50`, '/console/workflows/bench-big-history?view=raw&page=50');
    await time(`workflow page, ${historyEvents} events, timeline page 1`, '/console/workflows/bench-big-history?view=timeline');
    return { workflows: WORKFLOWS, startMs, historyEvents, pages };
  } finally {
    for (const stop of stops) await stop();
    await closeTemporalClient(client);
    await server.stop();
    await db.end();
  }
}

export function formatConsole(result: ConsoleBench): string[] {
  return [
    `Console (embedded Temporal in memory; ${result.workflows} workflows started in ${(result.startMs / 1000).toFixed(1)} s; best of 3, server side)`,
    ...result.pages.map((page) => `  ${page.name}: ${page.ms.toFixed(0)} ms (${(page.bytes / 1024).toFixed(0)} KiB)`),
  ];
}
