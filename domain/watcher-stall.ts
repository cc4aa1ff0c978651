/**
 * When a chain watcher that is not halted still counts as down: it has recorded no scan for `WATCHER_STALL_SECONDS`
 * while its chain has blocks it has not scanned. A watcher records each poll (every CHAIN_POLL_INTERVAL_MS when caught
 * up, even on a chain that makes no blocks), so a quiet watcher over an idle chain misses nothing and is not down;
 * one whose workflow no worker runs — a restarted worker stuck replaying (issue 33), no worker at all — is. `/ready`,
 * the metrics and the console judge by this rule.
 */

/** Seconds without a recorded scan, while the chain is past the watcher's cursor, after which the watcher is down. */
export const WATCHER_STALL_SECONDS = 60;

export interface WatcherProgress {
  /** The next block the watcher will scan. */
  nextBlock: number;
  /** Seconds since it last recorded a scan (or, before its first, since its cursor was set). */
  secondsSinceProgress: number;
}

/** Whether the watcher is stalled, given the chain's head now (undefined when the chain does not answer: not judged). */
export function watcherStalled(progress: WatcherProgress, head: number | undefined): boolean {
  if (head === undefined) return false;
  return head >= progress.nextBlock && progress.secondsSinceProgress >= WATCHER_STALL_SECONDS;
}

/** Why a stalled watcher is down, in words for anyone. */
export function stallMessage(progress: WatcherProgress, head: number): string {
  return `stalled: no scan for ${Math.floor(progress.secondsSinceProgress)} s (down after ${WATCHER_STALL_SECONDS} s) while the chain is at block ${head} and the watcher's next block is ${progress.nextBlock}`;
}
