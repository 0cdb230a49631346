import { type ToolResponse } from '@candor/tools';
import { type Admission, type RecordOptions } from './admission.ts';
import { type CountedFailure } from './counted-failure.ts';
import { ignore, OutcomeLink } from './outcome-link.ts';

/** The breaker's part in recording a call that went through opossum's `fire()`. */
export interface CallSettler {
  /**
   * Counts one admitted call's outcome in the breaker's metrics; the failure to hand on to
   * opossum, or `undefined` for a success.
   */
  settle(response: ToolResponse, timedOut: boolean): CountedFailure | undefined;
  /** Counts an admitted half-open trial in opossum's window as it ends. */
  ended(): void;
}

/**
 * A call fire() let through: a half-open trial, admitted and recorded by its owner, or a failure
 * of a closed-circuit call, handed to opossum by `failThrough` (see `ClosedOutcome`).
 */
export class FiredOutcome implements Admission {
  readonly admitted = true;
  // A separate object: an Admission must never itself be a thenable, or `await admit()` hangs.
  readonly link = new OutcomeLink();
  #fired: Promise<unknown> | undefined = undefined;
  #recorded = false;
  readonly #breaker: CallSettler;

  constructor(breaker: CallSettler) {
    this.#breaker = breaker;
  }

  /** Whether opossum ran the action, that is: admitted the call. */
  get started(): boolean {
    return this.link.onSuccess !== undefined;
  }

  /**
   * opossum's own promise for this fire(). It settles when the outcome is recorded: resolved on
   * a success, which needs no handler, and rejected on a failure, which gets one just before.
   */
  watch(fired: Promise<unknown>): void {
    this.#fired = fired;
  }

  record(response: ToolResponse, options?: RecordOptions): void {
    if (this.#recorded) return;
    this.#recorded = true;
    const failure = this.#breaker.settle(response, options?.timedOut === true);
    // The trial is counted in the window as it ends, as every call is (see admit()).
    this.#breaker.ended();
    if (failure === undefined) {
      this.link.onSuccess?.(response);
      return;
    }
    this.#fired?.then(ignore, ignore);
    this.link.onFailure?.(failure);
  }
}
