/**
 * Writes the production workflow bundle: `npm run build:workflows -- [output]`
 * (default dist/workflow-bundle.js). The worker loads it with WORKFLOW_BUNDLE_PATH instead of bundling
 * workflows/ with webpack at every start.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { exitWithUsageOnHelp } from '../config/cli';

async function main(): Promise<void> {
  exitWithUsageOnHelp('usage: npm run build:workflows -- [OUTPUT]   writes the workflow bundle (default dist/workflow-bundle.js) for WORKFLOW_BUNDLE_PATH');
  const output = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows') });
  await mkdir(path.dirname(output), { recursive: true });
  await writeFile(output, code);
  console.log(`Workflow bundle written to ${output} (${Math.round(code.length / 1024)} KiB)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
