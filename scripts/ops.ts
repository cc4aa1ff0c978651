/**
 * Operator CLI for workflow inspection, partner requests, and resuming a halted chain watcher (`npm run ops -- <command>`):
 *   list [--type T] [--status S] [--prefix P] [--limit N]   workflows, newest first
 *   show <workflowId> [--json]                             status, the workflow's own state query, pending activities and timers
 *   history <workflowId> [--events] [--json]               the steps (wall-clock times, whole payloads); --events: one line per event; --json: the raw events
 *   request <any id> [--json]                              a partner request by its issuer id, the broker's tokenization request id,
 *                                                          its workflow id or its tx hash: the issuer record, the broker's record, steps, transactions
 *   resume-watcher <id> [--reanchor [--from N]]            resumes a halted chain watcher (README, "On chain": a halt)
 * Connects to TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE; unset, to the Temporal of the stack `npm start` runs
 * (.data/stack.json), else 127.0.0.1:TEMPORAL_PORT (7233). Nothing answering there fails within seconds, naming the
 * address and how to start the service. `history` and `request` read the embedded service's PostgreSQL store
 * (DATABASE_URL, or the stack's database) and need no running service.
 */
import { Connection, Client } from '@temporalio/client';
import { loadConfig } from '../config';
import { exitWithUsageOnHelp } from '../config/cli';
import { createPool, type Database } from '../db/pool';
import { findPartnerRequestByAnyId } from '../db/queries/partner-requests';
import { chainTransactionRows } from '../db/queries/console';
import { readStackFile } from '../start/stack-file';
import { loadSandboxSecrets, sandboxConnection } from '../start/partner-sandbox';
import { BrokerClient, configuredBroker, type BrokerConnection } from '../partner/broker-client';
import { partnerWorkflowId } from '../api/v1/tokenization/workflow-state';
import { describeWorkflow, listWorkflows, queryWorkflowState, workflowTimeline, type TimelineEntry } from '../inspection/workflows';
import { formatTimeline } from '../inspection/timeline-format';
import { formatSteps, historySteps } from '../inspection/steps';
import { hasTemporalStore, storedTimeline, storedWorkflow } from '../inspection/stored-history';
import { chainWatcherResumeSignal } from '../temporal/messages';

const usage = `usage: npm run ops -- <command>   (Temporal: TEMPORAL_ADDRESS, else the one DATA_DIR/stack.json names; stored histories
  need only the database: DATABASE_URL, else stack.json's)
  list [--type T] [--status S] [--prefix P] [--limit N]   workflows, newest first
  show <workflowId> [--json]                             status, the workflow's state query, pending activities and timers
  history <workflowId> [--events] [--json]               the history as steps with wall-clock times; --events: one line
                                                         per event; --json: the raw events
  request <any id> [--json]                              a partner request by any of its ids: issuer and broker records,
                                                         steps, transactions
  resume-watcher <chain-watcher-id> [--reanchor [--from N]]   resumes a halted chain watcher`;

const COMMANDS = ['list', 'show', 'history', 'request', 'resume-watcher'];

/** How long the first call to the service may take before the tool says nothing answers. */
const CONNECT_TIMEOUT_MS = 3_000;

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : undefined;
}

/** Indents every line of a pretty-printed JSON value. */
const indented = (value: unknown, by: string): string => JSON.stringify(value, null, 2).replace(/\n/g, `\n${by}`);

const env = loadConfig(['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_PORT', 'DATA_DIR', 'DATABASE_URL', 'BROKER_URL', 'BROKER_ACCOUNT_ID', 'BROKER_KEY', 'BROKER_SECRET']);
// TEMPORAL_ADDRESS names a cluster and its namespace; otherwise the stack `npm start` runs says both.
const stack = readStackFile(env.DATA_DIR);
const temporalTarget = env.TEMPORAL_ADDRESS
  ? { address: env.TEMPORAL_ADDRESS, namespace: env.TEMPORAL_NAMESPACE }
  : { address: stack?.temporal?.address ?? `127.0.0.1:${env.TEMPORAL_PORT}`, namespace: stack?.temporal?.namespace ?? env.TEMPORAL_NAMESPACE };
const databaseUrl = env.DATABASE_URL ?? stack?.database;

/** Connects within a few seconds, or fails naming the address and how to start a service there. */
async function connect(): Promise<Client> {
  const { address, namespace } = temporalTarget;
  try {
    const connection = await Connection.connect({ address, connectTimeout: CONNECT_TIMEOUT_MS });
    await connection.workflowService.getSystemInfo({});
    return new Client({ connection, namespace });
  } catch (error) {
    throw new Error(
      [
        `No Temporal service answers at ${address} (${(error as Error).message.split('\n')[0]}).`,
        'Start one: `npm start` (the product, its embedded service on TEMPORAL_PORT, default 7233),',
        '`npm run temporal:server -- --port 7233 --database-url <DATABASE_URL>` (the service alone), or set TEMPORAL_ADDRESS to a running cluster.',
        databaseUrl ? '`history` and `request` read stored histories without a service.' : '',
      ]
        .filter(Boolean)
        .join('\n'),
      { cause: error },
    );
  }
}

let client: Client | undefined;
let pool: Database | undefined;
const temporalClient = async () => (client ??= await connect());
const database = () => (databaseUrl ? (pool ??= createPool(databaseUrl, 2)) : undefined);

/** A workflow's history from the store when the database holds it (no service needed), else from the service. */
async function historyOf(workflowId: string): Promise<{ timeline: TimelineEntry[]; source: string }> {
  const db = database();
  if (db && !env.TEMPORAL_ADDRESS && (await hasTemporalStore(db).catch(() => false))) {
    const run = await storedWorkflow(db, workflowId);
    if (run) return { timeline: await storedTimeline(db, run.runId), source: `stored run ${run.runId}, ${run.status}` };
  }
  return { timeline: await workflowTimeline(await temporalClient(), workflowId), source: `from ${temporalTarget.address}` };
}

function brokerConnection(): BrokerConnection | undefined {
  const configured = configuredBroker(env);
  if (configured) return configured;
  const entry = stack?.broker as { url?: string } | undefined;
  return entry?.url ? sandboxConnection(entry.url, loadSandboxSecrets(env.DATA_DIR), { timeoutMs: 3_000 }) : undefined;
}

async function requestView(id: string, json: boolean): Promise<void> {
  const db = database();
  if (!db) throw new Error('`request` reads the product database: set DATABASE_URL, or run it beside the stack `npm start` runs (.data/stack.json)');
  const request = await findPartnerRequestByAnyId(db, id);
  if (!request) throw new Error(`No partner request has the id ${id} (issuer request id, broker tokenization request id, workflow id or tx hash)`);
  const workflowId = partnerWorkflowId(request);
  const broker = brokerConnection();
  const [brokerRecord, history, transactions] = await Promise.all([
    broker
      ? new BrokerClient(broker).findByIssuerRequestId(request.issuerRequestId, request.kind).then(
          (record) => record ?? 'the broker has no record of it',
          (error: unknown) => `not answered: ${(error as Error).message}`,
        )
      : Promise.resolve('no broker configured (BROKER_* or the stack of npm start)'),
    historyOf(workflowId).catch((error: unknown) => ({ timeline: [], source: `not read: ${(error as Error).message}` })),
    chainTransactionRows(db, { keyPrefix: `${workflowId}:`, limit: 20, offset: 0 }),
  ]);
  const steps = historySteps(history.timeline);
  if (json) {
    console.log(JSON.stringify({ request, workflowId, broker: brokerRecord, steps, transactions }, null, 2));
    return;
  }
  console.log(`${request.kind} ${request.issuerRequestId}: ${request.state}${request.reason ? ` (${request.reason})` : ''}`);
  console.log(`  issuer record ${indented(request, '  ')}`);
  console.log(`  broker record ${typeof brokerRecord === 'string' ? brokerRecord : indented(brokerRecord, '  ')}`);
  for (const tx of transactions) console.log(`  tx ${String(tx.key)}: ${String(tx.tx_hash)} nonce ${String(tx.nonce)} ${String(tx.state)}${tx.block_number ? ` in block ${String(tx.block_number)}` : ''}`);
  console.log(`  workflow ${workflowId} (${history.source}), steps:`);
  console.log(formatSteps(steps));
}

async function main(): Promise<void> {
  exitWithUsageOnHelp(usage);
  const [command, ...args] = process.argv.slice(2);
  if (!command || !COMMANDS.includes(command)) {
    console.error(usage);
    process.exitCode = 2;
    return;
  }
  if (command === 'list') {
    const limit = option(args, 'limit');
    const workflows = await listWorkflows(await temporalClient(), {
      type: option(args, 'type'),
      status: option(args, 'status'),
      idPrefix: option(args, 'prefix'),
      pageSize: limit ? Number(limit) : undefined,
    });
    for (const workflow of workflows) {
      console.log(`${workflow.startTime}  ${workflow.status.padEnd(16)} ${workflow.type.padEnd(28)} ${workflow.workflowId}  (${workflow.runId})`);
    }
    if (workflows.length === 0) console.log('no workflows match');
    return;
  }
  const id = args.find((arg) => !arg.startsWith('--'));
  if (!id) throw new Error(usage);
  const json = args.includes('--json');
  if (command === 'request') return await requestView(id, json);
  if (command === 'history') {
    const { timeline, source } = await historyOf(id);
    if (json) console.log(JSON.stringify(timeline, null, 2));
    else if (args.includes('--events')) console.log(formatTimeline(timeline));
    else console.log(`${id} (${source})\n${formatSteps(historySteps(timeline))}`);
    return;
  }
  const temporal = await temporalClient();
  if (command === 'resume-watcher') {
    const reanchor = args.includes('--reanchor');
    const from = option(args, 'from');
    const fromBlock = from === undefined ? undefined : Number(from);
    if (fromBlock !== undefined && !Number.isSafeInteger(fromBlock)) throw new Error(`--from takes a block number, not ${from}`);
    await temporal.workflow.getHandle(id).signal(chainWatcherResumeSignal, { reanchor, fromBlock });
    const where = fromBlock === undefined ? 'after the last final block' : `from block ${fromBlock}`;
    console.log(`${id}: resume sent${reanchor ? ` (scanning again ${where})` : ''}; \`npm run ops -- show ${id}\` tells where it stands`);
    return;
  }
  const description = await describeWorkflow(temporal, id);
  const state = await queryWorkflowState(temporal, id).catch((error: unknown) => ({
    query: 'state',
    state: `not answered: ${error instanceof Error ? error.message : String(error)}`,
  }));
  if (json) {
    console.log(JSON.stringify({ ...description, state }, null, 2));
    return;
  }
  console.log(`${description.workflowId} (${description.runId})`);
  console.log(`  type ${description.type}, status ${description.status}, task queue ${description.taskQueue}`);
  console.log(`  started ${description.startTime}${description.closeTime ? `, closed ${description.closeTime}` : ''}, ${description.historyLength} events`);
  if (description.pendingWorkflowTask) {
    console.log(`  workflow task ${description.pendingWorkflowTask.state}, attempt ${description.pendingWorkflowTask.attempt}`);
  }
  for (const activity of description.pendingActivities) {
    const failure = activity.lastFailure ? `, last failure: ${activity.lastFailure.message}` : '';
    console.log(`  activity ${activity.activityType} #${activity.activityId} ${activity.state}, attempt ${activity.attempt}${failure}`);
  }
  for (const timer of description.pendingTimers) console.log(`  timer ${timer.timerId} fires at ${timer.firesAt ?? '?'}`);
  for (const child of description.pendingChildren) console.log(`  child ${child.type} ${child.workflowId}`);
  console.log(state ? `  state (${state.query} query): ${indented(state.state, '  ')}` : '  state: the workflow defines no state query');
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(async () => {
    await client?.connection.close().catch(() => undefined);
    await pool?.end().catch(() => undefined);
  });
