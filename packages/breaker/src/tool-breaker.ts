import { type CallAbort, type ToolResponse } from '@candor/tools';
import { type Admission, type Refusal } from './admission.ts';
import {
  type BreakerOptions,
  resolveBreakerOptions,
} from './breaker-options.ts';
import { type BreakerSnapshot } from './breaker-snapshot.ts';
import { type BreakerState } from './breaker-state.ts';
import { type ExecuteOptions } from './execute-options.ts';
import { OpossumToolBreaker } from './opossum-tool-breaker.ts';
import { type StateChange } from './state-change.ts';

export type { Admission, RecordOptions, Refusal } from './admission.ts';
export type { BreakerSnapshot, BreakerWindow } from './breaker-snapshot.ts';
export type { ExecuteOptions } from './execute-options.ts';
export type { StateChange, TransitionOrigin } from './state-change.ts';

/**
 * A circuit breaker for one tool. Create one with {@link createToolBreaker} or a `BreakerRegistry`.
 *
 * The seam is {@link ToolBreaker.admit}: the breaker only decides whether a call may run and
 * counts how it ended. Whoever runs the call (the registry, or {@link ToolBreaker.execute} for
 * standalone use) owns its one deadline, its cancellation and the classification of what it threw.
 */
export interface ToolBreaker {
  /** The tool's name. */
  readonly name: string;
  /** The observable state, computed now. */
  readonly state: BreakerState;
  /**
   * Asks to run one call. An {@link Admission} must be recorded exactly once; a {@link Refusal}
   * carries the CIRCUIT_OPEN response (with `retryAfterMs`) to return instead. Never throws.
   *
   * @example
   * ```ts
   * const admission = breaker.admit();
   * if (!admission.admitted) return admission.response;
   * let response = internalError;
   * try {
   *   response = await runTheTool();
   * } finally {
   *   admission.record(response);
   * }
   * ```
   */
  admit(): Admission | Refusal;
  /**
   * Runs `run` through the breaker, for callers without the registry: admit, run once under a
   * deadline of `timeoutMs + graceMs`, record. `run` receives a per-call `CallAbort` (following
   * `options.signal`; aborted by the deadline with a DOMException 'TimeoutError' reason). It never
   * rejects: refused → CIRCUIT_OPEN response WITHOUT calling run; deadline → TIMEOUT; a throw from
   * run → the response `classifyError` gives (ECONNRESET → NETWORK_ERROR); a value that is not a
   * ToolResponse → INTERNAL_ERROR. Success, partial and error responses come back as the SAME
   * object.
   */
  execute(
    run: (abort: CallAbort) => Promise<ToolResponse>,
    options?: ExecuteOptions,
  ): Promise<ToolResponse>;
  /** The state and the rolling window, computed now. */
  snapshot(): BreakerSnapshot;
  /** Calls `listener` once per real transition. Returns an unsubscribe function. */
  onStateChange(listener: (change: StateChange) => void): () => void;
  /** Refuses every call until each handle returned so far is released. */
  forceOpen(): {
    /** Gives this hold back; the breaker reopens to calls once every hold is released. */
    release(): void;
  };
  /**
   * Closes the circuit now, with an empty window, as if the tool had just recovered: for a caller
   * that knows the cause of the failures is gone (an MCP server reconnected, say). An open or
   * half-open circuit closes through opossum's own `close()` (its half-open timer cleared, one
   * `open → closed` change published); a closed one only forgets the failures in its window.
   * Holds from {@link ToolBreaker.forceOpen} stay (each is its holder's), a shut-down breaker
   * stays shut down, and a shared circuit (the `store` option) is not touched: while the fleet's
   * record is open, this process follows it until the fleet's own trial closes it.
   */
  reset(): void;
  /** Stops the breaker for good: its timers and listeners go; later calls are refused. */
  shutdown(): void;
}

/**
 * Creates a breaker for one tool. Prefer a `BreakerRegistry`, which keeps one breaker per tool
 * name: breakers are long-lived and must never be created per call.
 *
 * @example
 * ```ts
 * const breaker = createToolBreaker('web_fetch', { timeoutMs: 10_000 });
 * const response = await breaker.execute(({ signal }) => fetchTool(args, signal));
 * ```
 */
export function createToolBreaker(
  name: string,
  options: BreakerOptions = {},
): ToolBreaker {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new TypeError(
      `A breaker needs a non-empty tool name, got ${typeof name === 'string' ? JSON.stringify(name) : typeof name}`,
    );
  }
  return new OpossumToolBreaker(name, resolveBreakerOptions(options));
}
