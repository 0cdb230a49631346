import { retryAfterMsFrom } from '@candor/errors';

/** How a model retries a request that failed before anything was yielded. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2. */
  readonly maxRetries?: number;
  /** The longest wait between attempts; a server asking for more waits this long. Default 60 000. */
  readonly maxRetryDelayMs?: number;
  /** Waits between attempts; tests inject one that records instead of sleeping. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source, in [0, 1). */
  readonly random?: () => number;
}

/** Retry options with every default filled in. */
export interface RetryPolicy {
  /** How many times a failed model request is retried. */
  readonly maxRetries: number;
  /** The longest wait between attempts, in milliseconds. */
  readonly maxRetryDelayMs: number;
  /** Waits between attempts. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source, in [0, 1). */
  readonly random: () => number;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Fills defaults and checks ranges. */
export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const maxRetries = options.maxRetries ?? 2;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(
      `maxRetries must be an integer of at least 0, got ${String(maxRetries)}`,
    );
  }
  if (!Number.isFinite(maxRetryDelayMs) || maxRetryDelayMs < 0) {
    throw new RangeError(
      `maxRetryDelayMs must be a finite number of at least 0, got ${String(maxRetryDelayMs)}`,
    );
  }
  return {
    maxRetries,
    maxRetryDelayMs,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
  };
}

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 409, 429]);

/** 408, 409, 429 and 5xx (529 included) retry, unless the server's `x-should-retry` says otherwise. */
export function shouldRetryStatus(status: number, headers: Headers): boolean {
  const override = headers.get('x-should-retry');
  if (override === 'true') return true;
  if (override === 'false') return false;
  return RETRYABLE_STATUSES.has(status) || status >= 500;
}

/**
 * The wait before the next attempt: the server's `retry-after-ms` or `retry-after`, capped by
 * `maxRetryDelayMs`; otherwise exponential backoff from 500 ms to 8 s with up to 25 % jitter.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  headers?: Headers,
): number {
  const asked = headers === undefined ? undefined : retryAfterMsFrom(headers);
  if (asked !== undefined) return Math.min(asked, policy.maxRetryDelayMs);
  const backoff =
    Math.min(500 * 2 ** attempt, 8000) * (1 - policy.random() * 0.25);
  return Math.min(Math.round(backoff), policy.maxRetryDelayMs);
}
