/**
 * Signal, query and update definitions shared by workflows and their callers (API handlers, scripts).
 * Each message is defined once here with `defineSignal` / `defineQuery` / `defineUpdate` from
 * `@temporalio/workflow` and imported by both sides, so names and payload types cannot drift apart.
 */
export {};
