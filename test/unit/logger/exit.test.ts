/**
 * A process ending with `exitAfterLogs` has written every line it logged, in order, its last one last — also when
 * its output is read slowly (a busy terminal or pipe reader, a loaded machine), so that a write is still under way
 * when it decides to exit: here the reader holds off for half a second, the pipe fills, and the child's writes wait.
 * (Flushed and exited the way the product did before, 60 of its 5,001 lines were lost.)
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const LINES = 5_000;

test('the last lines are written, in order, before the process exits', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'exit-child.ts')], {
    env: { ...process.env, LINES: String(LINES) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    // Not read for a while: the pipe fills (64 KiB of the child's 1 MiB), and its writes wait.
    child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const logged = Buffer.concat(chunks)
      .toString('utf8')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => (JSON.parse(line) as { index: number }).index);
    expect(code).toBe(3);
    expect(logged.length).toBe(LINES + 1);
    expect(logged.every((index, position) => index === position)).toBe(true);
  } finally {
    child.kill('SIGKILL');
  }
}, 30_000);
