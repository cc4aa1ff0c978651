/**
 * Retrying a request when the contract says it is safe (the operation's retry class, `x-retry` in the document):
 * `always` (reads) after no answer, 429 and 502/503/504; `idempotency-key` the same, the one Idempotency-Key the call
 * carries sent again each time; `never` only after 429, which the API answers before doing anything. The wait is the
 * answer's Retry-After (seconds or an HTTP date) when it gives one, else exponential with jitter, capped.
 */
export type RetryClass = 'always' | 'idempotency-key' | 'never';

export interface RetryPolicy {
  /** Attempts in all, the first included (default 4). */
  maxAttempts?: number;
  /** The longest wait between two attempts (default 30 s); a longer Retry-After is not waited for. */
  maxDelayMs?: number;
  /** The first backoff when the answer names no wait (default 250 ms), doubled each attempt. */
  baseDelayMs?: number;
}

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

/** `Retry-After` in milliseconds (delay-seconds or an HTTP date), or undefined. */
export function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function retryable(retry: RetryClass, outcome: Response | undefined): boolean {
  if (outcome === undefined) return retry !== 'never';
  if (outcome.status === 429) return true;
  return retry !== 'never' && RETRIED_STATUSES.has(outcome.status);
}

/**
 * A fetch that retries `request` by its retry class; the last answer (or the last error) is the result. The request
 * is cloned for each attempt, so its body and headers (the Idempotency-Key among them) are the same every time.
 */
export function retryingFetch(base: (request: Request) => Promise<Response>, retry: RetryClass, policy: RetryPolicy = {}): (request: Request) => Promise<Response> {
  const { maxAttempts = 4, maxDelayMs = 30_000, baseDelayMs = 250 } = policy;
  return async (request) => {
    for (let attempt = 1; ; attempt += 1) {
      let outcome: Response | undefined;
      try {
        outcome = await base(request.clone());
      } catch (error) {
        if (request.signal.aborted || attempt >= maxAttempts || !retryable(retry, undefined)) throw error;
      }
      if (outcome && (attempt >= maxAttempts || !retryable(retry, outcome))) return outcome;
      const asked = outcome ? retryAfterMs(outcome) : undefined;
      if (asked !== undefined && asked > maxDelayMs && outcome) return outcome;
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      await outcome?.body?.cancel();
      await sleep(asked ?? backoff, request.signal);
    }
  };
}
