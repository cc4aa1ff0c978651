/**
 * A due-work loop (db/due-work-loop.ts: the sandbox's processor and order filler, the worker's attestation workflow
 * starts) on a database that cannot be reached — a pool on a port nothing listens on, so that each pass and each look
 * for the next due time fails as it would during an outage — says so once, keeps looking, and says once that it
 * resumed when a pass succeeds; a pass failing for another reason is logged each time.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { freePort } from '../../../config/free-port';
import { DueWorkLoop } from '../../../db/due-work-loop';
import { createPool } from '../../../db/pool';
import { eventually } from '../../support/eventually';

function capturedLogger() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { lines, logger: pino({ level: 'info', base: undefined }, stream) };
}

test('an outage is logged once, the recovery once, and the loop carries on', async () => {
  const { lines, logger } = capturedLogger();
  const unreachable = createPool(`postgres://postgres:postgres@127.0.0.1:${await freePort()}/issuer`, 1);
  let passes = 0;
  let outage = true;
  const loop = new DueWorkLoop({
    name: 'test loop',
    logger,
    pollMs: 5,
    clock: Date.now,
    drain: async () => {
      passes += 1;
      if (passes === 6) outage = false;
      if (outage) await unreachable.query('SELECT 1');
    },
    nextDueAt: async () => {
      if (outage) await unreachable.query('SELECT now()');
      return undefined;
    },
  });
  try {
    loop.wake();
    await eventually(async () => expect(passes).toBeGreaterThanOrEqual(8));
  } finally {
    await loop.stop();
    await unreachable.end();
  }
  expect(lines.map((line) => [line.level, line.msg])).toEqual([
    [40, 'test loop paused: the database cannot be reached (reported once until a pass succeeds)'],
    [30, 'test loop resumed: the database answers again'],
  ]);
});

test('a pass failing for another reason is logged every time', async () => {
  const { lines, logger } = capturedLogger();
  let passes = 0;
  const loop = new DueWorkLoop({
    name: 'test loop',
    logger,
    pollMs: 5,
    clock: Date.now,
    drain: async () => {
      passes += 1;
      if (passes <= 3) throw new Error('relation "broker.requests" does not exist');
    },
    nextDueAt: async () => undefined,
  });
  try {
    loop.wake();
    await eventually(async () => expect(passes).toBeGreaterThanOrEqual(5));
  } finally {
    await loop.stop();
  }
  expect(lines.map((line) => [line.level, line.msg])).toEqual([
    [50, 'test loop pass failed'],
    [50, 'test loop pass failed'],
    [50, 'test loop pass failed'],
  ]);
});
