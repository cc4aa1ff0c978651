/** The conformance suite (conformance.ts) against the embedded Temporal service's durable mode (PostgreSQL). */
import { defineConformanceSuite } from './conformance';

if (process.env.TEMPORAL_ADDRESS) {
  test.skip('the durable mode is the embedded service’s; TEMPORAL_ADDRESS points at another server', () => undefined);
} else {
  defineConformanceSuite('durable');
}
