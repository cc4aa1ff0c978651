/** .data/stack.json: where a running stack tells tools and people how to reach its parts. */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DevKeys } from './dev-keys';

export interface StackFile {
  api: string;
  keys: DevKeys;
  database: string;
  temporal?: { address: string; namespace: string; kind: string };
  [part: string]: unknown;
}

export function stackFilePath(dataDir: string): string {
  return path.join(dataDir, 'stack.json');
}

export function readStackFile(dataDir: string): Partial<StackFile> | undefined {
  try {
    return JSON.parse(readFileSync(stackFilePath(dataDir), 'utf8')) as Partial<StackFile>;
  } catch {
    return undefined;
  }
}

/** Writes atomically (temp file, then rename), readable only by the owner: it holds key secrets. */
export function writeStackFile(dataDir: string, stack: StackFile): void {
  mkdirSync(dataDir, { recursive: true });
  const target = stackFilePath(dataDir);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, target);
}
