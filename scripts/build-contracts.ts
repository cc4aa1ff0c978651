/**
 * Builds the contracts: compiles `contracts/src` and writes the committed artifacts
 * (`contracts/artifacts/*.json`, `contracts/abi.ts`, `contracts/bytecode.ts`).
 * Usage: npm run build:contracts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPOSITORY_ROOT, compileContracts, renderArtifacts } from '../contracts/compile';
import { exitWithUsageOnHelp } from '../config/cli';

exitWithUsageOnHelp('usage: npm run build:contracts   compiles contracts/src into contracts/artifacts, contracts/abi.ts and contracts/bytecode.ts');
const started = performance.now();
const files = renderArtifacts(compileContracts());
for (const [relativePath, content] of files) {
  const file = path.join(REPOSITORY_ROOT, relativePath);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`compiled ${files.size} artifacts in ${seconds} s`);
