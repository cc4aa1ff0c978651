/**
 * A `Date` whose "now" runs `offsetMs` ahead of `RealDate`'s: `Date.now()`, `new Date()` and `Date()` are moved,
 * `new Date(x)` and every other static are `RealDate`'s own, and `instanceof` still holds. The clock of a Node process
 * (harness/shifted-clock.mjs) and of a jest test's context (test/support/shifted-clock-environment.js) are made with it.
 */
function shiftedDate(RealDate, offsetMs) {
  const now = () => RealDate.now() + offsetMs;
  return new Proxy(RealDate, {
    construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
    // `Date()` called without `new` answers the current date as a string.
    apply: () => new RealDate(now()).toString(),
    get: (target, property, receiver) => (property === 'now' ? now : Reflect.get(target, property, receiver)),
  });
}

module.exports = { shiftedDate };
