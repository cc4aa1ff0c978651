/**
 * The in-memory service's single virtual clock. Virtual time runs with real time, plus an offset that grows
 * when time skipping jumps ahead. Every event time, timer and deadline in the service is read from here.
 *
 * Time skipping follows Temporal's Java test server: it is locked (off) at start; TestService clients unlock
 * and lock it (a counter). While unlocked and the service reports nothing in flight, the clock jumps straight
 * to the next scheduled timer instead of waiting for it.
 */

export interface ScheduledTimer {
  cancel(): void;
}

interface TimerEntry {
  at: number;
  seq: number;
  fire: () => void;
  cancelled: boolean;
}

export class VirtualClock {
  private offsetMs = 0;
  private lockCount = 1;
  private readonly heap: TimerEntry[] = [];
  private seq = 0;
  private realTimer: NodeJS.Timeout | undefined;
  private realTimerAt = Infinity;
  private checkQueued = false;
  private stopped = false;

  /** @param isIdle tells whether nothing is in flight (no task outstanding or being processed). */
  constructor(private readonly isIdle: () => boolean) {}

  /** Current virtual time in epoch milliseconds. */
  now(): number {
    return Date.now() + this.offsetMs;
  }

  get timeSkippingLocked(): boolean {
    return this.lockCount > 0;
  }

  lock(): void {
    this.lockCount += 1;
  }

  unlock(): void {
    if (this.lockCount === 0) throw new Error('Time skipping is not locked');
    this.lockCount -= 1;
    this.poke();
  }

  /** Runs `fire` when virtual time reaches `at` (epoch ms). */
  schedule(at: number, fire: () => void): ScheduledTimer {
    const entry: TimerEntry = { at, seq: this.seq++, fire, cancelled: false };
    this.push(entry);
    this.poke();
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  /** Runs `fire` after `delayMs` of virtual time. */
  after(delayMs: number, fire: () => void): ScheduledTimer {
    return this.schedule(this.now() + delayMs, fire);
  }

  /** Resolves once virtual time reaches `at`. */
  sleepUntil(at: number): Promise<void> {
    return new Promise((resolve) => this.schedule(at, resolve));
  }

  /** Re-evaluates due timers and time skipping soon; call after anything that may change "in flight". */
  poke(): void {
    if (this.checkQueued || this.stopped) return;
    this.checkQueued = true;
    setImmediate(() => {
      this.checkQueued = false;
      this.advance();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.realTimer) clearTimeout(this.realTimer);
  }

  private advance(): void {
    if (this.stopped) return;
    this.fireDue();
    const next = this.peek();
    if (next && this.lockCount === 0 && this.isIdle()) {
      const now = this.now();
      if (next.at > now) this.offsetMs += next.at - now;
      this.fireDue();
      this.poke();
      return;
    }
    this.armRealTimer();
  }

  private fireDue(): void {
    const now = this.now();
    for (let next = this.peek(); next && next.at <= now; next = this.peek()) {
      this.pop();
      next.fire();
    }
  }

  private armRealTimer(): void {
    const next = this.peek();
    const at = next ? next.at : Infinity;
    if (at === this.realTimerAt) return;
    if (this.realTimer) clearTimeout(this.realTimer);
    this.realTimer = undefined;
    this.realTimerAt = at;
    if (at === Infinity) return;
    const delay = Math.min(Math.max(at - this.now(), 0), 2 ** 31 - 1);
    this.realTimer = setTimeout(() => {
      this.realTimer = undefined;
      this.realTimerAt = Infinity;
      this.advance();
    }, delay);
    this.realTimer.unref();
  }

  private peek(): TimerEntry | undefined {
    while (this.heap.length > 0 && this.heap[0]!.cancelled) this.pop();
    return this.heap[0];
  }

  private push(entry: TimerEntry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): TimerEntry | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
        if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
        i = smallest;
      }
    }
    return top;
  }
}

function before(a: TimerEntry, b: TimerEntry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
