/**
 * The wall clock of a Node process moved to another instant, as Debian's `faketime` moves a program's: preloaded with
 * `NODE_OPTIONS=--import=<this file>` and `SHIFTED_CLOCK_START=<ISO-8601 instant>`, the process's `Date` starts at
 * that instant when the process starts and then runs at real speed. Timers, `performance.now()` and every duration
 * are untouched; only what reads the date (`Date.now()`, `new Date()`, `Date()`) is moved.
 *
 * The test suite runs the product's processes on chosen instants with it (a Saturday, an exchange holiday: see
 * test/readme), and a developer can try the product in a session the real clock is not in. It moves Node processes
 * only: PostgreSQL's `now()` and the local chains' block times stay on the real clock, so an instant ahead of the real
 * one keeps every chain check (a quote's expiry against its block's time) as it would be. Plain JavaScript, so that
 * it loads before any TypeScript loader does.
 */
const start = process.env.SHIFTED_CLOCK_START;
if (start) {
  const at = Date.parse(start);
  if (Number.isNaN(at)) throw new Error(`SHIFTED_CLOCK_START: not an ISO-8601 instant: ${start}`);
  const RealDate = Date;
  const offset = at - RealDate.now();
  const now = () => RealDate.now() + offset;
  globalThis.Date = new Proxy(RealDate, {
    // `new Date()` is the shifted now; `new Date(x)` is x, as ever.
    construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
    // `Date()` called without `new` answers the current date as a string.
    apply: () => new RealDate(now()).toString(),
    get: (target, property, receiver) => (property === 'now' ? now : Reflect.get(target, property, receiver)),
  });
}
