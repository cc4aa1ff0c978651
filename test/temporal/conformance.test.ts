/** The conformance suite (conformance.ts) against the embedded Temporal service in memory, or TEMPORAL_ADDRESS. */
import { defineConformanceSuite } from './conformance';

defineConformanceSuite('in-memory');
