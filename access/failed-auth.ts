/**
 * Failed authentications per client address (`AUTH_FAILURES_PER_MINUTE`, default 10), shared by the API's key
 * check, the gRPC streams and the brokerage sandbox's basic authentication.
 *
 * A lookup of a credential the process does not know to be valid goes ahead only while the address has a failure
 * left that no other lookup in flight may still spend; past that, it waits for those lookups to settle, and once
 * none is in flight and no failure is left the address is refused (429) before anything is looked up. A failure is
 * taken only for a credential found invalid, so a valid one is never refused for failures it did not make — not even
 * in a first burst of many — while a burst of guesses reaches the database no faster than the budget allows.
 */
import { RateLimiter, type RateLimitPolicy, type TakeResult } from './rate-limiter';

/** The failed-authentication policy: `perMinute` failures per client address, all of them usable at once. */
export function failedAuthPolicy(perMinute: number): RateLimitPolicy {
  return { name: 'failed-auth', perSecond: perMinute / 60, burst: perMinute };
}

export type FailedAuthOutcome<T> =
  /** The lookup ran (or was joined): its value, and the address's budget after it (one failure fewer if it failed). */
  | { outcome: 'checked'; value: T; budget: TakeResult }
  /** No failure left for the address: refuse without looking up. */
  | { outcome: 'throttled'; budget: TakeResult };

interface AddressLookups {
  /** Lookups in flight that hold one of the address's failures until they settle. */
  reserved: number;
  /** Callers waiting for one of them to settle. */
  waiting: (() => void)[];
}

export class FailedAuthentications {
  private readonly failures = new RateLimiter();
  private readonly lookups = new Map<string, AddressLookups>();

  constructor(readonly policy: RateLimitPolicy) {}

  /** The address's budget now, without taking anything (for answers that make no lookup, such as a missing key). */
  peek(address: string): TakeResult {
    return this.failures.peek(address, this.policy.perSecond, this.policy.burst);
  }

  /** Takes one failure of the address (a credential known valid turned out revoked, say). */
  fail(address: string): TakeResult {
    return this.failures.take(address, this.policy.perSecond, this.policy.burst);
  }

  /**
   * Runs `lookup` for a credential from `address` and takes a failure only when `failed(value)`. With `shared`, the
   * lookup joins one already in flight for the same credential, which holds the reservation for both.
   */
  async check<T>(address: string, lookup: () => Promise<T>, failed: (value: T) => boolean, options: { shared?: boolean } = {}): Promise<FailedAuthOutcome<T>> {
    if (options.shared) return this.settle(address, await lookup(), failed);
    let entry: AddressLookups;
    for (;;) {
      // Looked up afresh each turn: the entry is dropped whenever no lookup of the address is in flight.
      entry = this.entryOf(address);
      const budget = this.peek(address);
      if (budget.remaining - entry.reserved >= 1) break;
      if (entry.reserved === 0) {
        this.forgetIdle(address, entry);
        return { outcome: 'throttled', budget: this.fail(address) };
      }
      await new Promise<void>((resolve) => entry.waiting.push(resolve));
    }
    entry.reserved += 1;
    let value: T;
    try {
      value = await lookup();
    } finally {
      entry.reserved -= 1;
      entry.waiting.splice(0).forEach((wake) => wake());
      this.forgetIdle(address, entry);
    }
    return this.settle(address, value, failed);
  }

  private settle<T>(address: string, value: T, failed: (value: T) => boolean): FailedAuthOutcome<T> {
    if (!failed(value)) return { outcome: 'checked', value, budget: this.peek(address) };
    const budget = this.fail(address);
    return budget.allowed ? { outcome: 'checked', value, budget } : { outcome: 'throttled', budget };
  }

  private entryOf(address: string): AddressLookups {
    let entry = this.lookups.get(address);
    if (!entry) {
      entry = { reserved: 0, waiting: [] };
      this.lookups.set(address, entry);
    }
    return entry;
  }

  private forgetIdle(address: string, entry: AddressLookups): void {
    if (entry.reserved === 0 && entry.waiting.length === 0) this.lookups.delete(address);
  }
}
