/**
 * The long-lived workflows — the chain watchers, hedging, reserves, market-data retention — run for as long as the
 * product does, one run after another. What holds for all of them, for their code (workflows/long-lived.ts) and for
 * whoever starts them: a run stays short enough that a worker replays it quickly on a loaded machine, whatever the
 * machine, and its workflow tasks have time for that replay.
 */

/**
 * A run continues as new once it has this many history events, this many bytes of history, or this age — whichever
 * comes first, or sooner when the service suggests it. A watcher at 9,500 events took 9–12 s to replay on two busy
 * cores (issue 33); 1,000 take about a second there.
 */
export const LONG_LIVED_RUN_LIMITS = { events: 1_000, bytes: 512 * 1024, ageMs: 6 * 3_600_000 } as const;

/**
 * The workflow task timeout of a long-lived workflow, given at its start and at each continue-as-new: three times the
 * default 10 s, so that a replay slowed by load completes (and from the fourth attempt the service gives each more).
 */
export const LONG_LIVED_WORKFLOW_TASK_TIMEOUT = '30 seconds';
