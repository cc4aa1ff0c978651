/**
 * Jest's order of suites, with the ones that run the whole product (minutes each) first. Jest puts the slowest first
 * when its cache has their durations, but a clean clone (CI) has none and it then orders by file size, which puts
 * these small files last: two workers then end on them, one of them idle for minutes.
 */
import TestSequencer from '@jest/test-sequencer';

const WHOLE_PRODUCT = /\/test\/(readme\/[^/]+|campaign\/(run|workload|stack)|client\/end-to-end|production\/processes|start\/shutdown)\.test\.ts$/;

export default class SlowFirstSequencer extends TestSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [...sorted.filter((test) => WHOLE_PRODUCT.test(test.path)), ...sorted.filter((test) => !WHOLE_PRODUCT.test(test.path))];
  }
}
