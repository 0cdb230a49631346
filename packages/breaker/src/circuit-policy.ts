import { type ResolvedBreakerOptions } from './breaker-options.ts';
import { type CountedFailure } from './counted-failure.ts';
import { CountWindow, type PolicyWindow, TimeWindow } from './policy-window.ts';
import { type ToolCircuit } from './tool-circuit.ts';

/** Whether `options` ask for a rule opossum does not have, so a {@link CircuitPolicy} decides. */
export function usesPolicies(options: ResolvedBreakerOptions): boolean {
  return (
    options.windowCalls !== undefined ||
    options.slowCallMs !== undefined ||
    options.permittedCallsInHalfOpen > 1
  );
}

/** What a call admitted by a policy is: a closed-circuit call (-1), or a trial of a generation. */
export type PolicyTicket = number;

/** A closed-circuit call's ticket. */
export const CLOSED_CALL: PolicyTicket = -1;

/**
 * The rules opossum has none of (resilience4j's count window, slow calls and several half-open
 * calls), applied around opossum, which stays the engine of the states: this decides when to
 * call its `open()` and `close()`, and opossum still times the open state and says half-open.
 * Every call is counted in opossum's own window too, for `snapshot()` and the telemetry, but
 * never through `fire()`, so opossum's own rate rule never runs. Only breakers given one of these
 * options have one: a default breaker's calls never come here.
 */
export class CircuitPolicy {
  readonly #circuit: ToolCircuit;
  readonly #window: PolicyWindow;
  readonly #minimumCalls: number;
  readonly #failureRatePct: number;
  readonly #slowCallMs: number | undefined;
  readonly #slowCallRatePct: number;
  readonly #permitted: number;
  /** Grows on every half-open: a trial of an older one is not this one's. */
  #generation = 0;
  #admitted = 0;
  #ended = 0;
  #failed = 0;
  #slowTrials = 0;

  constructor(circuit: ToolCircuit, options: ResolvedBreakerOptions) {
    this.#circuit = circuit;
    this.#window =
      options.windowCalls === undefined
        ? new TimeWindow(options.windowMs, options.buckets)
        : new CountWindow(options.windowCalls);
    this.#minimumCalls = options.minimumCalls;
    this.#failureRatePct = options.failureRatePct;
    this.#slowCallMs = options.slowCallMs;
    this.#slowCallRatePct = options.slowCallRatePct;
    this.#permitted = options.permittedCallsInHalfOpen;
  }

  /** The window the policy decides from. */
  get window(): PolicyWindow {
    return this.#window;
  }

  /**
   * A ticket for a call that may run now, or `undefined` to refuse it (open, or every half-open
   * slot taken; the refusal is counted in opossum's window, as fire() counts one).
   */
  admit(): PolicyTicket | undefined {
    const circuit = this.#circuit;
    if (circuit.closed) return CLOSED_CALL;
    if (circuit.halfOpen && this.#admitted < this.#permitted) {
      this.#admitted += 1;
      return this.#generation;
    }
    circuit.countRefusal();
    return undefined;
  }

  /** When a call admitted now started, for {@link isSlow}; no clock read unless slow calls count. */
  startedAt(): number {
    // The monotonic clock: a wall clock stepped by NTP or an operator would make a call slow or fast.
    return this.#slowCallMs === undefined ? 0 : performance.now();
  }

  /** Whether a call that started at `startedAt` and ends now took longer than `slowCallMs`. */
  isSlow(startedAt: number): boolean {
    const limit = this.#slowCallMs;
    return limit !== undefined && performance.now() - startedAt > limit;
  }

  /** Counts the outcome of a call admitted with `ticket`, then opens or closes the circuit. */
  ended(
    ticket: PolicyTicket,
    failure: CountedFailure | undefined,
    slow: boolean,
  ): void {
    const circuit = this.#circuit;
    circuit.countCall(failure);
    const failed = failure !== undefined;
    if (ticket === CLOSED_CALL) {
      // A call that ends after the circuit left closed decides nothing: only trials decide a
      // half-open circuit (so the fleet's shared window, which drops such calls, agrees).
      if (!circuit.closed) return;
      const window = this.#window;
      window.add(failed, slow);
      if (this.#trips(window.calls, window.failures, window.slow)) {
        circuit.open();
      }
      return;
    }
    if (ticket !== this.#generation || !circuit.halfOpen) return;
    this.#ended += 1;
    if (failed) this.#failed += 1;
    if (slow) this.#slowTrials += 1;
    if (this.#reopens(this.#failed, this.#slowTrials)) circuit.open();
    else if (this.#ended === this.#permitted) circuit.close();
  }

  /** The closed window's rule: enough calls, and a failure rate strictly above, or slow calls at or above, theirs. */
  #trips(calls: number, failures: number, slow: number): boolean {
    if (calls < this.#minimumCalls) return false;
    return (
      failures * 100 > this.#failureRatePct * calls ||
      (this.#slowCallMs !== undefined &&
        slow * 100 >= this.#slowCallRatePct * calls)
    );
  }

  /**
   * The half-open rule (resilience4j's): the trials' failure or slow rate at or above its
   * threshold reopens. Out of all the permitted trials, so it is certain as soon as it holds:
   * one failed trial of one always reopens.
   */
  #reopens(failed: number, slow: number): boolean {
    const permitted = this.#permitted;
    return (
      failed * 100 >= this.#failureRatePct * permitted ||
      (this.#slowCallMs !== undefined &&
        slow * 100 >= this.#slowCallRatePct * permitted)
    );
  }

  /** opossum went half-open: a new set of trials. */
  halfOpened(): void {
    this.#generation += 1;
    this.#admitted = 0;
    this.#ended = 0;
    this.#failed = 0;
    this.#slowTrials = 0;
  }

  /** The circuit closed or was reset: a recovered tool starts from a clean window. */
  cleared(): void {
    this.#window.clear();
  }

  /** Gives back the window's shared timer. Call once. */
  stop(): void {
    this.#window.stop();
  }
}
