/**
 * The wall clock of Node processes moved to another instant, as Debian's `faketime` moves a program's: preloaded with
 * `NODE_OPTIONS=--import=<this file>` and `SHIFTED_CLOCK_START=<ISO-8601 instant>`, a process's `Date` is at that
 * instant when it starts and then runs at real speed. It writes the shift to `SHIFTED_CLOCK_OFFSET_MS` in its
 * environment, which wins over the start, so the processes it starts (and any given the same offset) share its clock.
 * Timers, `performance.now()` and every duration are untouched; only what reads the date (`Date.now()`, `new Date()`,
 * `Date()`) is moved.
 *
 * The test suite runs the product's processes on chosen instants with it (a Saturday, an exchange holiday: see
 * test/readme), and a developer can try the product in a session the real clock is not in. It moves Node processes
 * only: PostgreSQL's `now()` and the local chains' block times stay on the real clock, so an instant ahead of the real
 * one keeps every chain check (a quote's expiry against its block's time) as it would be. Plain JavaScript, so that
 * it loads before any TypeScript loader does.
 */
import { createRequire } from 'node:module';

const { shiftedDate } = createRequire(import.meta.url)('./shifted-date.cjs');
const { SHIFTED_CLOCK_START: start, SHIFTED_CLOCK_OFFSET_MS: inherited } = process.env;
if (start || inherited) {
  const offset = inherited ? Number(inherited) : Date.parse(start) - Date.now();
  if (!Number.isFinite(offset)) throw new Error(`SHIFTED_CLOCK_START is not an ISO-8601 instant (${start}), or SHIFTED_CLOCK_OFFSET_MS not a number (${inherited})`);
  process.env.SHIFTED_CLOCK_OFFSET_MS = String(offset);
  globalThis.Date = shiftedDate(Date, offset);
}
