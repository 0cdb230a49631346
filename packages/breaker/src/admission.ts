import { type ErrorResponse, type ToolResponse } from '@candor/tools';

/** Options of {@link Admission.record}. */
export interface RecordOptions {
  /** The call's deadline ended it (counted in the window's `timeouts` as well as its failures). */
  readonly timedOut?: boolean;
}

/**
 * A call the breaker let through. Its owner runs the call, then records the outcome exactly once;
 * later records are ignored. A call that is admitted and never recorded holds a half-open
 * breaker's trial slot forever, so record in a `finally`.
 */
export interface Admission {
  readonly admitted: true;
  /**
   * Counts the call's outcome: a failure when {@link countsAsFailure} says so, else a success
   * (opossum has no neutral outcome). Synchronous: the state has changed when it returns.
   */
  record(response: ToolResponse, options?: RecordOptions): void;
}

/** A call the breaker refused; the tool must not run. */
export interface Refusal {
  readonly admitted: false;
  /** The CIRCUIT_OPEN response to return in its place. */
  readonly response: ErrorResponse;
  /**
   * When a call may be admitted again, in ms: from the open timestamp while open, 0 while a
   * half-open trial is in flight, `undefined` while forced open or shut down.
   */
  readonly retryAfterMs: number | undefined;
}

/** A refusal carrying `response`. */
export function refusal(
  response: ErrorResponse,
  retryAfterMs: number | undefined,
): Refusal {
  return { admitted: false, response, retryAfterMs };
}

/** What a disabled breaker admits with: everything, recording nothing. */
export const passThrough: Admission = Object.freeze({
  admitted: true as const,
  record: () => undefined,
});
