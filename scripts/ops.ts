/**
 * Operator CLI for workflow inspection, and resuming a halted chain watcher (`npm run ops -- <command>`):
 *   list [--type T] [--status S] [--prefix P] [--limit N]   workflows, newest first
 *   show <workflowId> [--json]                             status, the workflow's own state query, pending activities and timers
 *   history <workflowId> [--json]                          one line per event with its meaning; --json: the raw events
 *   resume-watcher <id> [--reanchor [--from N]]            resumes a halted chain watcher (README, "On chain": a halt)
 * Connects to TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE; unset, to the Temporal of the stack `npm start` runs
 * (.data/stack.json), else 127.0.0.1:7233. Against a real cluster, the Temporal Web UI shows the same
 * histories graphically.
 */
import { loadConfig } from '../config';
import { exitWithUsageOnHelp } from '../config/cli';
import { readStackFile } from '../start/stack-file';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { describeWorkflow, listWorkflows, queryWorkflowState, workflowTimeline } from '../inspection/workflows';
import { formatTimeline } from '../inspection/timeline-format';
import { chainWatcherResumeSignal } from '../temporal/messages';

const usage = `usage: npm run ops -- <command>   (Temporal: TEMPORAL_ADDRESS, else the one DATA_DIR/stack.json names)
  list [--type T] [--status S] [--prefix P] [--limit N]   workflows, newest first
  show <workflowId> [--json]                             status, the workflow's state query, pending activities and timers
  history <workflowId> [--json]                          one line per event with its meaning; --json: the raw events
  resume-watcher <chain-watcher-id> [--reanchor [--from N]]   resumes a halted chain watcher`;

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : undefined;
}

/** Indents every line of a pretty-printed JSON value. */
const indented = (value: unknown, by: string): string => JSON.stringify(value, null, 2).replace(/\n/g, `\n${by}`);

async function main(): Promise<void> {
  exitWithUsageOnHelp(usage);
  const [command, ...args] = process.argv.slice(2);
  const env = loadConfig(['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'DATA_DIR']);
  if (!command || !['list', 'show', 'history', 'resume-watcher'].includes(command)) {
    console.error(usage);
    process.exitCode = 2;
    return;
  }
  // TEMPORAL_ADDRESS names a cluster and its namespace; otherwise the stack `npm start` runs says both.
  const stack = env.TEMPORAL_ADDRESS ? undefined : readStackFile(env.DATA_DIR)?.temporal;
  const client = await createTemporalClient({
    address: env.TEMPORAL_ADDRESS ?? stack?.address ?? '127.0.0.1:7233',
    namespace: stack?.namespace ?? env.TEMPORAL_NAMESPACE,
  });
  try {
    if (command === 'list') {
      const limit = option(args, 'limit');
      const workflows = await listWorkflows(client, {
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
    const workflowId = args.find((arg) => !arg.startsWith('--'));
    if (!workflowId) throw new Error(usage);
    const json = args.includes('--json');
    if (command === 'resume-watcher') {
      const reanchor = args.includes('--reanchor');
      const from = option(args, 'from');
      const fromBlock = from === undefined ? undefined : Number(from);
      if (fromBlock !== undefined && !Number.isSafeInteger(fromBlock)) throw new Error(`--from takes a block number, not ${from}`);
      await client.workflow.getHandle(workflowId).signal(chainWatcherResumeSignal, { reanchor, fromBlock });
      const where = fromBlock === undefined ? 'after the last final block' : `from block ${fromBlock}`;
      console.log(`${workflowId}: resume sent${reanchor ? ` (scanning again ${where})` : ''}; \`npm run ops -- show ${workflowId}\` tells where it stands`);
      return;
    }
    if (command === 'show') {
      const description = await describeWorkflow(client, workflowId);
      const state = await queryWorkflowState(client, workflowId).catch((error: unknown) => ({
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
      return;
    }
    const timeline = await workflowTimeline(client, workflowId);
    console.log(json ? JSON.stringify(timeline, null, 2) : formatTimeline(timeline));
  } finally {
    await closeTemporalClient(client);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
