import { describeThrown, type ToolErrorCode } from '@candor/errors';
import {
  CallAbort,
  type ErrorResponse,
  type Logger,
  type ToolResponse,
} from '@candor/tools';
import CircuitBreaker from 'opossum';
import {
  type BreakerOptions,
  resolveBreakerOptions,
  type ResolvedBreakerOptions,
} from './breaker-options.ts';
import { type BreakerCallOutcome, BreakerMetrics } from './breaker-metrics.ts';
import { breakerResponses } from './breaker-responses.ts';
import {
  type SharedAdmission,
  type SharedChange,
  type SharedCircuit,
} from './breaker-state-store.ts';
import { type BreakerState } from './breaker-state.ts';
import { bucketTicker } from './bucket-ticker.ts';
import { CountedFailure } from './counted-failure.ts';
import { countsAsFailure } from './counts-as-failure.ts';
import { checkedResponse } from './checked-response.ts';
import { runWithDeadline } from './run-with-deadline.ts';
import { type LatencyStatus, withoutLatencies } from './without-latencies.ts';

/** What a breaker's rolling window holds right now. */
export interface BreakerWindow {
  /** Every call that ended in the window, and every refusal (the rate's denominator). */
  calls: number;
  /** Calls counted as failures: counted ERROR codes, throws and deadline timeouts. */
  failures: number;
  /** Calls that ended without counting as failures (success, partial, non-counted errors). */
  successes: number;
  /** Calls refused with CIRCUIT_OPEN by the breaker's own state. */
  rejected: number;
  /** Calls their deadline ended, while `TIMEOUT` counts as a failure; each is also in `failures`, once. */
  timeouts: number;
  /** `failures / calls * 100`, or 0 for an empty window. */
  failureRatePct: number;
}

/** A point-in-time view of one breaker. */
export interface BreakerSnapshot {
  name: string;
  state: BreakerState;
  /** When the breaker opened (Date.now()), while it is open. */
  openedAt?: number;
  /** When the breaker will let a trial call through, while it is open and not forced. */
  nextAttemptAt?: number;
  window: BreakerWindow;
}

/**
 * One real transition. `reason` is the last counted code, on a transition to `open`. `origin` is
 * `process` when this process decided it (its own breaker, or its own outcome in a shared
 * store), `fleet` when another process's outcome in the shared store did, or the store went away
 * or came back.
 */
export interface StateChange {
  name: string;
  from: BreakerState;
  to: BreakerState;
  reason?: ToolErrorCode;
  origin: TransitionOrigin;
}

/** Who decided a transition: this process, or the fleet sharing its state store. */
export type TransitionOrigin = 'process' | 'fleet';

/** Per-call options of {@link ToolBreaker.execute}. */
export interface ExecuteOptions {
  /** The caller's signal; the per-call controller is linked to it. */
  signal?: AbortSignal;
}

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
  /** Stops the breaker for good: its timers and listeners go; later calls are refused. */
  shutdown(): void;
}

/**
 * What opossum's action returns for one admitted call: a thenable whose callbacks the owner's
 * `record()` calls, so opossum counts the outcome synchronously, with no timer and no promise of
 * our own. opossum 9 calls `result.then(onSuccess).catch(onFailure)` on the action's result.
 * One object per call holds both callbacks (in place of a closure per method).
 */
class OutcomeLink {
  onSuccess: ((value: unknown) => void) | undefined = undefined;
  onFailure: ((error: unknown) => void) | undefined = undefined;

  then(onSuccess: (value: unknown) => void): this {
    this.onSuccess = onSuccess;
    return this;
  }

  catch(onFailure: (error: unknown) => void): void {
    this.onFailure = onFailure;
  }
}

/**
 * A call fire() let through: a half-open trial, admitted and recorded by its owner, or a failure
 * of a closed-circuit call, handed to opossum by {@link failThrough}.
 */
class Outcome implements Admission {
  readonly admitted = true;
  // A separate object: an Admission must never itself be a thenable, or `await admit()` hangs.
  readonly link = new OutcomeLink();
  #fired: Promise<unknown> | undefined = undefined;
  #recorded = false;
  readonly #breaker: OpossumToolBreaker;

  constructor(breaker: OpossumToolBreaker) {
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

/** A call the shared circuit admitted: its outcome goes to the shared window (or trial). */
class SharedOutcome implements Admission {
  readonly admitted = true;
  #recorded = false;
  readonly #breaker: OpossumToolBreaker;
  readonly #circuit: SharedCircuit;
  readonly #admission: SharedAdmission;

  constructor(
    breaker: OpossumToolBreaker,
    circuit: SharedCircuit,
    admission: SharedAdmission,
  ) {
    this.#breaker = breaker;
    this.#circuit = circuit;
    this.#admission = admission;
  }

  record(response: ToolResponse): void {
    if (this.#recorded) return;
    this.#recorded = true;
    const failed = this.#breaker.settleShared(response);
    try {
      this.#circuit.record(this.#admission, failed);
    } catch (error: unknown) {
      this.#breaker.storeFailed(error);
    }
  }
}

/**
 * A call admitted while the circuit was closed. opossum is told when the call ends, not when it
 * starts, as the fleet's shared window is: a call in flight is not yet in the window, and the
 * failure rate is over calls that ended. A success is counted through opossum's own `fire` and
 * `success` events (what `fire()` emits for it, without its promise, its closures and its two
 * clock reads: a fifth of a trivial tool's call through the registry). A failure goes through
 * `fire()` itself, so opossum's own rule decides whether the circuit opens. A half-open trial
 * still fires at admission, to take opossum's one trial slot, and is counted when it ends too.
 */
class ClosedOutcome implements Admission {
  readonly admitted = true;
  #recorded = false;
  readonly #breaker: OpossumToolBreaker;
  readonly #circuit: ToolCircuit;

  constructor(breaker: OpossumToolBreaker, circuit: ToolCircuit) {
    this.#breaker = breaker;
    this.#circuit = circuit;
  }

  record(response: ToolResponse, options?: RecordOptions): void {
    if (this.#recorded) return;
    this.#recorded = true;
    const failure = this.#breaker.settle(response, options?.timedOut === true);
    const circuit = this.#circuit;
    if (failure === undefined) {
      // opossum's Status counts both; its own `success` listener closes a half-open circuit, as
      // it does for any success that arrives then. Neither reads the payload.
      circuit.emit('fire', noArguments);
      circuit.emit('success', undefined, 0);
    } else if (circuit.closed) {
      failThrough(circuit, new Outcome(this.#breaker), failure);
    } else {
      // The circuit opened (or went half-open) while this call ran: fire() would refuse it, and
      // count a refusal for a call that ran. Counted as opossum counts the failure of a call it
      // let through before opening: a failure that changes nothing while open, and reopens a
      // half-open circuit.
      circuit.emit('fire', noArguments);
      circuit.emit('failure', failure, 0, noArguments);
      if (circuit.halfOpen) circuit.open();
    }
  }
}

/** A failure told to opossum through fire(), so its own rule decides whether to open. */
function failThrough(
  circuit: ToolCircuit,
  outcome: Outcome,
  failure: CountedFailure,
): void {
  let fired: Promise<unknown>;
  try {
    fired = circuit.fire(outcome);
  } catch {
    // opossum never throws from fire() on a closed circuit; the call's response stands anyway.
    return;
  }
  // Rejected with the failure, which nothing else waits for.
  fired.then(ignore, ignore);
  outcome.link.onFailure?.(failure);
}

const noArguments: readonly unknown[] = Object.freeze([]);

/** The part of opossum's `Status` that fire() counts a call in as it starts. */
interface StartedCounts {
  /** A copy of the window's bucket list, newest first; the buckets themselves are live. */
  readonly window: readonly { fires: number }[];
}

/**
 * Takes back the `fire` count that fire() made as it let a half-open trial through, so the trial
 * is counted when it ends, as every call is. fire() counted it in the newest bucket just now,
 * synchronously, so no rotation came in between.
 */
function uncountStart(circuit: ToolCircuit): void {
  const newest = (circuit.status as unknown as StartedCounts).window[0];
  if (newest !== undefined) newest.fires -= 1;
}

// A disabled breaker admits everything and records nothing.
const passThrough: Admission = Object.freeze({
  admitted: true as const,
  record: () => undefined,
});

function ignore(): void {
  // opossum's own promise for a fire(); the outcome is read from our Outcome instead.
}

/**
 * opossum's circuit for one breaker. It knows its breaker, so the action and the listeners are
 * module-level functions shared by every breaker instead of five closures per tool.
 */
class ToolCircuit extends CircuitBreaker<[Outcome]> {
  readonly owner: OpossumToolBreaker;

  constructor(owner: OpossumToolBreaker, options: CircuitBreaker.Options) {
    super(linkOutcome, options);
    this.owner = owner;
  }
}

// opossum's types ask for a Promise; it only ever calls then().catch() on the result.
function linkOutcome(outcome: Outcome): Promise<unknown> {
  return outcome.link as unknown as Promise<unknown>;
}

// opossum calls its listeners with the circuit as `this`.
function onFailure(this: ToolCircuit, error: unknown): void {
  this.owner.failed(error);
}

function onOpen(this: ToolCircuit): void {
  this.owner.opened();
}

function onHalfOpen(this: ToolCircuit): void {
  this.owner.halfOpened();
}

function onClose(this: ToolCircuit): void {
  this.owner.closed();
}

function failureCode(error: unknown): ToolErrorCode | undefined {
  return error instanceof CountedFailure && error.response.status === 'error'
    ? error.response.errorInfo.code
    : undefined;
}

function refusal(
  response: ErrorResponse,
  retryAfterMs: number | undefined,
): Refusal {
  return { admitted: false, response, retryAfterMs };
}

/** The caller's signal, read once and defensively: a hostile options object cannot throw here. */
function readSignal(options: ExecuteOptions): AbortSignal | undefined {
  try {
    const signal: unknown = options.signal;
    return signal instanceof AbortSignal ? signal : undefined;
  } catch {
    return undefined;
  }
}

class OpossumToolBreaker implements ToolBreaker {
  readonly name: string;
  readonly #options: ResolvedBreakerOptions;
  readonly #logger: Logger;
  readonly #circuit: ToolCircuit | undefined;
  readonly #shared: SharedCircuit | undefined;
  #unshare: (() => void) | undefined;
  #storeFailed = false;
  // Made on first subscription: most breakers never get a listener.
  #listeners: Set<(change: StateChange) => void> | undefined;
  readonly #metrics: BreakerMetrics | undefined;
  #telemetryFailed = false;
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
      this.#circuit = this.#createCircuit();
      this.#shared = this.#share();
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
            onError: (error) => {
              this.#telemetryError(error);
            },
          });
  }

  #telemetryError(error: unknown): void {
    // Once per breaker: a broken meter would otherwise write a line per call.
    if (this.#telemetryFailed) return;
    this.#telemetryFailed = true;
    this.#logger.warn(
      { error: describeThrown(error) },
      'telemetry failed; calls are unaffected',
    );
  }

  #count(outcome: BreakerCallOutcome): void {
    this.#metrics?.call(outcome);
  }

  /** The tool's circuit in the shared store, if one is configured and answers. */
  #share(): SharedCircuit | undefined {
    const store = this.#options.store;
    if (store === undefined) return undefined;
    const options = this.#options;
    try {
      const shared = store.circuit(this.name, {
        resetTimeoutMs: options.resetTimeoutMs,
        windowMs: options.windowMs,
        buckets: options.buckets,
        minimumCalls: options.minimumCalls,
        failureRatePct: options.failureRatePct,
        // The trial's lease outlives the longest a call may run under this breaker.
        leaseMs: options.timeoutMs + options.graceMs,
      });
      this.#unshare = shared.onChange((change: SharedChange) => {
        this.#publish(change.origin);
      });
      return shared;
    } catch (error: unknown) {
      this.storeFailed(error);
      return undefined;
    }
  }

  /** A store that throws is treated as absent for the call; one warning per breaker. */
  storeFailed(error: unknown): void {
    if (this.#storeFailed) return;
    this.#storeFailed = true;
    this.#logger.warn(
      { error: describeThrown(error) },
      'breaker state store failed; this breaker decides alone',
    );
  }

  /** The shared view admissions follow now, or `local`. */
  #sharedView(): SharedCircuit['view'] {
    const shared = this.#shared;
    if (shared === undefined) return 'local';
    try {
      return shared.view;
    } catch (error: unknown) {
      this.storeFailed(error);
      return 'local';
    }
  }

  #createCircuit(): ToolCircuit {
    const options = this.#options;
    // Shared by every breaker of this bucket width; given back in shutdown().
    const rotations = bucketTicker.attach(options.windowMs / options.buckets);
    const circuit = new ToolCircuit(this, {
      name: this.name,
      // Off: the call's owner holds its one deadline, so every admitted call is recorded and a
      // hanging trial still ends (see Admission).
      timeout: false,
      resetTimeout: options.resetTimeoutMs,
      rollingCountTimeout: options.windowMs,
      rollingCountBuckets: options.buckets,
      volumeThreshold: options.minimumCalls,
      errorThresholdPercentage: options.failureRatePct,
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
      rotateBucketController: rotations,
      allowWarmUp: false,
      cache: false,
    });
    withoutLatencies(circuit.status as unknown as LatencyStatus, rotations);
    // 'failure' is emitted before opossum decides to open, so the reason is known in time.
    circuit.on('failure', onFailure);
    circuit.on('open', onOpen);
    circuit.on('halfOpen', onHalfOpen);
    circuit.on('close', onClose);
    return circuit;
  }

  /** Counts an admitted half-open trial in opossum's window as it ends. Called by Outcome. */
  ended(): void {
    this.#circuit?.emit('fire', noArguments);
  }

  /** opossum counted a failure. Called by the circuit's listener. */
  failed(error: unknown): void {
    this.#lastCountedCode = failureCode(error) ?? this.#lastCountedCode;
  }

  /** opossum opened the circuit. Called by the circuit's listener. */
  opened(): void {
    this.#openedAt = Date.now();
    this.#publish();
  }

  /** opossum let a trial call through. Called by the circuit's listener. */
  halfOpened(): void {
    this.#publish();
  }

  /** opossum closed the circuit. Called by the circuit's listener. */
  closed(): void {
    const circuit = this.#circuit;
    if (circuit !== undefined) {
      // opossum keeps the window across a close, so one failure right after recovery would
      // reopen the breaker; a recovered tool starts from a clean window instead. The rotate
      // controller is shared with other breakers, so this breaker's buckets rotate alone.
      const status = circuit.status as unknown as LatencyStatus;
      for (let i = 0; i < this.#options.buckets; i++) status.rotateBucket();
    }
    this.#publish();
  }

  get state(): BreakerState {
    if (this.#isShutdown) return 'shutdown';
    if (this.#forced > 0) return 'open';
    const circuit = this.#circuit;
    if (circuit === undefined) return 'disabled';
    const view = this.#sharedView();
    if (view !== 'local') return view;
    if (circuit.opened) return 'open';
    if (circuit.halfOpen) return 'half_open';
    return 'closed';
  }

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
    const shared = this.#shared;
    if (shared !== undefined && this.#sharedView() !== 'local') {
      const answer = this.#admitShared(shared);
      if (answer !== undefined) return answer;
    }
    // Closed (not half-open, open or shut down): opossum only counts this call, when it ends.
    if (circuit.closed) return new ClosedOutcome(this, circuit);
    const outcome = new Outcome(this);
    let fired: Promise<unknown>;
    try {
      fired = circuit.fire(outcome);
    } catch (error: unknown) {
      return refusal(this.#misused(error), undefined);
    }
    if (outcome.started) {
      // The half-open trial: fire() took opossum's one trial slot, and counted the call as it
      // started. A call in flight is not in the window, so the count moves to record().
      uncountStart(circuit);
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

  /** The shared circuit's answer; `undefined` when the local breaker must decide. */
  #admitShared(shared: SharedCircuit): Admission | Refusal | undefined {
    let answer: SharedAdmission;
    try {
      answer = shared.admit();
    } catch (error: unknown) {
      this.storeFailed(error);
      return undefined;
    }
    switch (answer.kind) {
      case 'local':
        return undefined;
      case 'run':
      case 'trial':
        return new SharedOutcome(this, shared, answer);
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

  /**
   * Counts one admitted call's outcome; the failure to hand on to opossum, or `undefined` for a
   * success. Called by Outcome, which then tells opossum.
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

  async execute(
    run: (abort: CallAbort) => Promise<ToolResponse>,
    options: ExecuteOptions = {},
  ): Promise<ToolResponse> {
    if (typeof run !== 'function') {
      return breakerResponses.misuse(
        this.name,
        `execute() needs a function that runs the tool, got ${typeof run}`,
      );
    }
    if (this.#isShutdown) {
      this.#count('rejected');
      return breakerResponses.shutDown(this.name);
    }
    const signal = readSignal(options);
    if (signal?.aborted === true) {
      return breakerResponses.cancelled(this.name, false);
    }
    const admission = this.admit();
    if (!admission.admitted) return admission.response;
    const abort = new CallAbort();
    const unfollow = abort.follow(signal);
    const deadlineMs = this.#options.timeoutMs + this.#options.graceMs;
    let timedOut = false;
    let response: ToolResponse = breakerResponses.misuse(
      this.name,
      'the call ended without a response',
    );
    try {
      response = await runWithDeadline({
        toolName: this.name,
        timeoutMs: deadlineMs,
        abort,
        run,
        accept: (value) => checkedResponse(this.name, value),
        timedOut: () => {
          timedOut = true;
          return breakerResponses.backstopTimeout(this.name, deadlineMs);
        },
        cancelled: () => breakerResponses.cancelled(this.name, true),
      });
    } finally {
      unfollow();
      admission.record(response, { timedOut });
    }
    return response;
  }

  #misused(error: unknown): ErrorResponse {
    this.#logger.error(
      { error: describeThrown(error) },
      'circuit breaker failed unexpectedly',
    );
    return breakerResponses.misuse(this.name, describeThrown(error));
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

  #nextAttemptAt(): number {
    return this.#currentOpenedAt() + this.#options.resetTimeoutMs;
  }

  #currentOpenedAt(): number {
    if (this.#sharedView() === 'open') {
      return this.#shared?.openedAt ?? this.#openedAt;
    }
    return this.#openedAt;
  }

  snapshot(): BreakerSnapshot {
    const state = this.state;
    const stats = this.#circuit?.stats;
    const calls = stats?.fires ?? 0;
    const failures = stats?.failures ?? 0;
    const window: BreakerWindow = {
      calls,
      failures,
      successes: stats?.successes ?? 0,
      rejected: stats?.rejects ?? 0,
      timeouts: stats?.timeouts ?? 0,
      failureRatePct: calls === 0 ? 0 : (failures / calls) * 100,
    };
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

  onStateChange(listener: (change: StateChange) => void): () => void {
    if (typeof listener !== 'function') {
      throw new TypeError(
        `onStateChange() needs a listener function, got ${typeof listener}`,
      );
    }
    // Wrapped so the same function subscribed twice gets two independent subscriptions.
    const entry = (change: StateChange): void => {
      listener(change);
    };
    (this.#listeners ??= new Set()).add(entry);
    return () => {
      this.#listeners?.delete(entry);
    };
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

  shutdown(): void {
    if (this.#isShutdown) return;
    this.#isShutdown = true;
    // opossum's shutdown removes its rotate listener and every listener on the circuit, and
    // clears its reset timer. Calls still in flight finish; their deadline still applies.
    if (this.#circuit !== undefined) {
      this.#circuit.shutdown();
      bucketTicker.detach(this.#options.windowMs / this.#options.buckets);
    }
    this.#unshare?.();
    this.#publish();
    this.#metrics?.close();
    this.#listeners?.clear();
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
    this.#log(change);
    this.#metrics?.transition(from, to, origin);
    for (const listener of [...(this.#listeners ?? [])]) {
      try {
        listener(change);
      } catch (error: unknown) {
        // A listener's bug must never break the call that caused the transition.
        this.#logger.error(
          { from, to, error: describeThrown(error) },
          'state-change listener threw',
        );
      }
    }
  }

  #log(change: StateChange): void {
    // Said only where a store is shared: without one every transition is this process's.
    const base =
      this.#shared === undefined
        ? { from: change.from, to: change.to }
        : { from: change.from, to: change.to, origin: change.origin };
    const { to } = change;
    switch (to) {
      case 'open': {
        const { window } = this.snapshot();
        this.#logger.warn(
          {
            ...base,
            forced: this.#forced > 0,
            ...(change.reason === undefined ? {} : { reason: change.reason }),
            calls: window.calls,
            failures: window.failures,
            failureRatePct: window.failureRatePct,
          },
          'circuit opened: calls are refused',
        );
        return;
      }
      case 'half_open':
        this.#logger.info(base, 'circuit half-open: one trial call');
        return;
      case 'closed':
        this.#logger.info(base, 'circuit closed: calls flow again');
        return;
      case 'disabled':
        this.#logger.info(base, 'circuit disabled: calls pass through');
        return;
      case 'shutdown':
        this.#logger.info(base, 'circuit breaker shut down');
        return;
    }
  }
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
