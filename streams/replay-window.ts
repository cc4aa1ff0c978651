/**
 * The replay window of one process's live events: every event published in the last `retainMs` (at most
 * `maxEvents` of them), so that a client reconnecting with `Last-Event-ID` gets exactly the events it missed.
 * Event ids are `<epoch>-<seq>`; an id of another process (or of a previous run) names no point here.
 */
import type { StreamEvent } from './events';

const COMPACT_AFTER = 4_096;

export class ReplayWindow {
  /** Published events, oldest first, from index `head`. */
  private events: StreamEvent[] = [];
  private head = 0;
  /** Every event with a seq above this is still in the window (if it was published). */
  private evictedThrough = 0;
  private lastSeq = 0;

  constructor(
    private readonly epoch: string,
    private readonly retainMs: number,
    private readonly maxEvents: number,
  ) {}

  push(event: StreamEvent): void {
    this.events.push(event);
    this.lastSeq = event.seq;
    this.evict();
  }

  /** Forgets events past the window. */
  evict(): void {
    const oldest = Date.now() - this.retainMs;
    while (this.head < this.events.length) {
      const event = this.events[this.head]!;
      if (event.publishedAt >= oldest && this.events.length - this.head <= this.maxEvents) break;
      this.evictedThrough = event.seq;
      this.head += 1;
    }
    if (this.head > COMPACT_AFTER && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /** The seq a `Last-Event-ID` names, if it is this process's and every event after it is still in the window. */
  resumePoint(lastEventId: string | undefined): number | undefined {
    const match = /^([0-9a-z]+)-(\d{1,15})$/.exec(lastEventId ?? '');
    if (!match || match[1] !== this.epoch) return undefined;
    const seq = Number(match[2]);
    return seq <= this.lastSeq && seq >= this.evictedThrough ? seq : undefined;
  }

  /** The events after seq `after` of the given topics, oldest first. */
  after(after: number, topics: Set<string>): StreamEvent[] {
    let low = this.head;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.events[middle]!.seq <= after) low = middle + 1;
      else high = middle;
    }
    return this.events.slice(low).filter((event) => topics.has(event.topic));
  }
}
