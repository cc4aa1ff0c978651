/**
 * Workflow bundles built once per source version and cached under the temp directory, so test files and
 * benchmarks do not each pay for webpack: the product's workflows, and the Temporal workload beside this file.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

/**
 * The bundle of `workflowsPath`, built once per version of the `.ts` sources in `sourceDirs` (or of the
 * entry file alone) and cached under the temp directory as `<name>-<hash>.js`.
 */
export async function cachedWorkflowBundle(name: string, workflowsPath: string, sourceDirs: string[] = []): Promise<string> {
  const hash = createHash('sha256');
  const files = sourceDirs.length === 0 ? [workflowsPath] : sourceDirs.flatMap((dir) => readdirSync(dir).filter((file) => file.endsWith('.ts')).sort().map((file) => path.join(dir, file)));
  for (const file of files) hash.update(readFileSync(file));
  const cached = path.join(os.tmpdir(), `${name}-${hash.digest('hex').slice(0, 16)}.js`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  writeFileSync(cached, code);
  return code;
}

const ROOT = path.join(__dirname, '..');

/** The product's workflows (workflows/index.ts), bundled once per version of workflows/ and temporal/. */
export function productBundle(): Promise<string> {
  return cachedWorkflowBundle('issuer-workflows', require.resolve(path.join(ROOT, 'workflows')), [path.join(ROOT, 'workflows'), path.join(ROOT, 'temporal')]);
}

/** The Temporal workload's workflows (temporal-workload/workflows.ts), bundled once per source version. */
export function workloadBundle(): Promise<string> {
  return cachedWorkflowBundle('temporal-workload', path.join(__dirname, 'temporal-workload', 'workflows.ts'));
}
