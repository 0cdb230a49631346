import { describeThrown, type ToolErrorCode } from '@candor/errors';
import {
  type CallAbort,
  type ErrorResponse,
  type Logger,
  type ToolResponse,
} from '@candor/tools';
import {
  type Admission,
  passThrough,
  type Refusal,
  refusal,
} from './admission.ts';
import { type ResolvedBreakerOptions } from './breaker-options.ts';
import { type BreakerCallOutcome, BreakerMetrics } from './breaker-metrics.ts';
import { breakerResponses } from './breaker-responses.ts';
import { type BreakerSnapshot, windowOf } from './breaker-snapshot.ts';
import { type BreakerState } from './breaker-state.ts';
import { CircuitPolicy, usesPolicies } from './circuit-policy.ts';
import { ClosedOutcome } from './closed-outcome.ts';
import { CountedFailure } from './counted-failure.ts';
import { countsAsFailure } from './counts-as-failure.ts';
import { executeCall } from './execute-call.ts';
import { type ExecuteOptions } from './execute-options.ts';
import { FiredOutcome } from './fired-outcome.ts';
import { FleetCircuit } from './fleet-circuit.ts';
import { logTransition } from './log-transition.ts';
import { ignore } from './outcome-link.ts';
import { onceWarning } from './once-warning.ts';
import { PolicyOutcome } from './policy-outcome.ts';
import { SharedOutcome } from './shared-outcome.ts';
import { type StateChange, type TransitionOrigin } from './state-change.ts';
import { StateListeners } from './state-listeners.ts';
import { ToolCircuit } from './tool-circuit.ts';

function failureCode(error: unknown): ToolErrorCode | undefined {
  return error instanceof CountedFailure && error.response.status === 'error'
    ? error.response.errorInfo.code
    : undefined;
}

/**
 * The `ToolBreaker` on opossum. A call goes through its stages in this order:
 * 1. {@link OpossumToolBreaker.admit}: shut down, forced open, disabled (`passThrough`), the
 *    fleet's circuit (`FleetCircuit`, `SharedOutcome`), a closed circuit (`ClosedOutcome`), else
 *    opossum's `fire()` for a half-open trial (`FiredOutcome`) or a refusal;
 * 2. the owner runs the call (`execute()` does, through `executeCall`);
 * 3. the admission's `record()`: {@link OpossumToolBreaker.settle} counts it, then opossum is told;
 * 4. opossum's events (`ToolCircuit`) come back as transitions, published once each to the log
 *    (`logTransition`), the metrics (`BreakerMetrics`) and the listeners (`StateListeners`).
 */
export class OpossumToolBreaker {
  readonly name: string;
  readonly #options: ResolvedBreakerOptions;
  readonly #logger: Logger;
  readonly #circuit: ToolCircuit | undefined;
  readonly #fleet: FleetCircuit | undefined;
  /** Only when an option asks for a rule opossum lacks; default breakers never read it. */
  readonly #policy: CircuitPolicy | undefined;
  #listeners: StateListeners | undefined;
  readonly #metrics: BreakerMetrics | undefined;
  #published: BreakerState;
  #openedAt = 0;
  #forcedAt = 0;
  #forced = 0;
  #isShutdown = false;
  #lastCountedCode: ToolErrorCode | undefined;

  constructor(name: string, options: ResolvedBreakerOptions) {
    this.name = name;
    this.#options = options;
    this.#logger = options.logger.child({
      component: 'circuit-breaker',
      tool: name,
    });
    if (options.enabled) {
      this.#circuit = new ToolCircuit(this, name, options);
      if (usesPolicies(options)) {
        this.#policy = new CircuitPolicy(this.#circuit, options);
      }
      this.#fleet = FleetCircuit.join({
        tool: name,
        options,
        logger: this.#logger,
        onChange: (change) => {
          this.#publish(change.origin);
        },
      });
    }
    this.#published = this.state;
    const meter = options.meter;
    this.#metrics =
      meter === undefined
        ? undefined
        : BreakerMetrics.create({
            meter,
            tool: name,
            state: () => this.state,
            onError: onceWarning(
              this.#logger,
              'telemetry failed; calls are unaffected',
            ),
          });
  }

  get state(): BreakerState {
    if (this.#isShutdown) return 'shutdown';
    if (this.#forced > 0) return 'open';
    const circuit = this.#circuit;
    if (circuit === undefined) return 'disabled';
    const view = this.#fleet?.view ?? 'local';
    if (view !== 'local') return view;
    if (circuit.opened) return 'open';
    if (circuit.halfOpen) return 'half_open';
    return 'closed';
  }

  // Stage 1: admission.

  admit(): Admission | Refusal {
    if (this.#isShutdown) {
      this.#count('rejected');
      return refusal(breakerResponses.shutDown(this.name), undefined);
    }
    if (this.#forced > 0) {
      this.#logger.debug({ state: 'open', forced: true }, 'call refused');
      this.#count('rejected');
      return refusal(breakerResponses.forcedOpen(this.name), undefined);
    }
    const circuit = this.#circuit;
    // A pass-through breaker records nothing, in its window or in its metrics.
    if (circuit === undefined) return passThrough;
    const fleet = this.#fleet;
    if (fleet !== undefined && fleet.view !== 'local') {
      const answer = this.#admitShared(fleet);
      if (answer !== undefined) return answer;
    }
    const policy = this.#policy;
    if (policy !== undefined) {
      const ticket = policy.admit();
      if (ticket !== undefined) return new PolicyOutcome(this, policy, ticket);
      this.#count('rejected');
      return this.#refused();
    }
    // Closed (not half-open, open or shut down): opossum only counts this call, when it ends.
    if (circuit.closed) return new ClosedOutcome(this, circuit);
    return this.#fire(circuit);
  }

  /** The shared circuit's answer; `undefined` when the local breaker must decide. */
  #admitShared(fleet: FleetCircuit): Admission | Refusal | undefined {
    const answer = fleet.admit();
    if (answer === undefined) return undefined;
    switch (answer.kind) {
      case 'local':
        return undefined;
      case 'run':
      case 'trial':
        return new SharedOutcome(this, fleet, answer);
      case 'refuse':
        this.#count('rejected');
        if (answer.state === 'half_open') {
          return refusal(breakerResponses.trialInFlight(this.name), 0);
        }
        return refusal(
          breakerResponses.open(this.name, answer.retryAfterMs),
          answer.retryAfterMs,
        );
    }
  }

  /** Not closed: opossum's fire() lets the half-open trial through, or refuses. */
  #fire(circuit: ToolCircuit): Admission | Refusal {
    const outcome = new FiredOutcome(this);
    let fired: Promise<unknown>;
    try {
      fired = circuit.fire(outcome);
    } catch (error: unknown) {
      return refusal(this.#misused(error), undefined);
    }
    if (outcome.started) {
      // The half-open trial: fire() took opossum's one trial slot, and counted the call as it
      // started. A call in flight is not in the window, so the count moves to record().
      circuit.uncountStart();
      outcome.watch(fired);
      return outcome;
    }
    // A refusal is a rejected promise: handled here, since nothing else waits for it.
    fired.then(ignore, ignore);
    // opossum refused without running the action: open, half-open with a trial out, or shut down.
    this.#count('rejected');
    if (circuit.isShutdown)
      return refusal(breakerResponses.shutDown(this.name), undefined);
    return this.#refused();
  }

  #refused(): Refusal {
    if (this.state === 'half_open') {
      this.#logger.debug(
        { state: 'half_open', retryAfterMs: 0 },
        'call refused',
      );
      return refusal(breakerResponses.trialInFlight(this.name), 0);
    }
    const retryAfterMs = Math.max(0, this.#nextAttemptAt() - Date.now());
    this.#logger.debug({ state: 'open', retryAfterMs }, 'call refused');
    return refusal(
      breakerResponses.open(this.name, retryAfterMs),
      retryAfterMs,
    );
  }

  #misused(error: unknown): ErrorResponse {
    this.#logger.error(
      { error: describeThrown(error) },
      'circuit breaker failed unexpectedly',
    );
    return breakerResponses.misuse(this.name, describeThrown(error));
  }

  // Stage 2, for callers without the registry: run the admitted call under its deadline.

  execute(
    run: (abort: CallAbort) => Promise<ToolResponse>,
    options: ExecuteOptions = {},
  ): Promise<ToolResponse> {
    return executeCall(this, run, options);
  }

  /** The deadline `execute()` gives a call: the tool's budget plus grace. */
  get deadlineMs(): number {
    return this.#options.timeoutMs + this.#options.graceMs;
  }

  // Stage 3: record. Called by the admissions, which then tell opossum or the fleet.

  /**
   * Counts one admitted call's outcome; the failure to hand on to opossum, or `undefined` for a
   * success.
   */
  settle(
    response: ToolResponse,
    timedOut: boolean,
  ): CountedFailure | undefined {
    if (!countsAsFailure(response, this.#options.failureCodes)) {
      this.#count(response.status === 'error' ? 'ignored' : 'success');
      return undefined;
    }
    this.#count('failure');
    // opossum's window counts timeouts from its own 'timeout' event; its timer is off, so the
    // deadline's timeouts are announced the same way.
    if (timedOut) this.#circuit?.emit('timeout');
    return new CountedFailure(response);
  }

  /** Counts a call the shared circuit admitted; says whether it counts as a failure. */
  settleShared(response: ToolResponse): boolean {
    if (!countsAsFailure(response, this.#options.failureCodes)) {
      this.#count(response.status === 'error' ? 'ignored' : 'success');
      return false;
    }
    this.#count('failure');
    if (response.status === 'error') {
      this.#lastCountedCode = response.errorInfo.code;
    }
    return true;
  }

  /** Counts an admitted half-open trial in opossum's window as it ends. */
  ended(): void {
    this.#circuit?.countEnded();
  }

  #count(outcome: BreakerCallOutcome): void {
    this.#metrics?.call(outcome);
  }

  // Stage 4: transitions, from opossum's events (see ToolCircuit), the fleet and the controls.

  /** opossum counted a failure. */
  failed(error: unknown): void {
    this.#lastCountedCode = failureCode(error) ?? this.#lastCountedCode;
  }

  /** opossum opened the circuit. */
  opened(): void {
    this.#openedAt = Date.now();
    this.#publish();
  }

  /** opossum let a trial call through. */
  halfOpened(): void {
    this.#policy?.halfOpened();
    this.#publish();
  }

  /** opossum closed the circuit: a recovered tool starts from a clean window. */
  closed(): void {
    this.#circuit?.resetWindow();
    this.#policy?.cleared();
    this.#publish();
  }

  /** Emits a change when the observable state differs from the last one published. */
  #publish(origin: TransitionOrigin = 'process'): void {
    const to = this.state;
    const from = this.#published;
    if (to === from) return;
    this.#published = to;
    const reason =
      to === 'open' && this.#forced === 0 ? this.#lastCountedCode : undefined;
    const change: StateChange = {
      name: this.name,
      from,
      to,
      ...(reason === undefined ? {} : { reason }),
      origin,
    };
    logTransition(this.#logger, change, {
      shared: this.#fleet !== undefined,
      forced: this.#forced > 0,
      window: () => windowOf(this.#circuit?.stats),
    });
    this.#metrics?.transition(from, to, origin);
    this.#listeners?.notify(change, this.#logger);
  }

  onStateChange(listener: (change: StateChange) => void): () => void {
    return (this.#listeners ??= new StateListeners()).add(listener);
  }

  // Observing and controls.

  snapshot(): BreakerSnapshot {
    const state = this.state;
    const window = windowOf(this.#circuit?.stats);
    if (state !== 'open') return { name: this.name, state, window };
    if (this.#forced > 0 && this.#circuit?.opened !== true) {
      return { name: this.name, state, openedAt: this.#forcedAt, window };
    }
    return {
      name: this.name,
      state,
      openedAt: this.#currentOpenedAt(),
      ...(this.#forced > 0 ? {} : { nextAttemptAt: this.#nextAttemptAt() }),
      window,
    };
  }

  #nextAttemptAt(): number {
    return this.#currentOpenedAt() + this.#options.resetTimeoutMs;
  }

  #currentOpenedAt(): number {
    const fleet = this.#fleet;
    if (fleet?.view === 'open') return fleet.openedAt ?? this.#openedAt;
    return this.#openedAt;
  }

  forceOpen(): { release(): void } {
    let released = false;
    this.#forced += 1;
    if (this.#forced === 1) this.#forcedAt = Date.now();
    this.#publish();
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#forced -= 1;
        this.#publish();
      },
    };
  }

  reset(): void {
    const circuit = this.#circuit;
    if (this.#isShutdown || circuit === undefined) return;
    // close() is a no-op on a closed circuit; there only the window goes. Otherwise its 'close'
    // event empties the window and publishes the change (closed()).
    if (circuit.closed) {
      circuit.resetWindow();
      this.#policy?.cleared();
    } else circuit.close();
  }

  shutdown(): void {
    if (this.#isShutdown) return;
    this.#isShutdown = true;
    // Calls still in flight finish; their deadline still applies.
    this.#circuit?.stop();
    this.#policy?.stop();
    this.#fleet?.leave();
    this.#publish();
    this.#metrics?.close();
    this.#listeners?.clear();
  }
}
