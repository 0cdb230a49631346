import { describeThrown, type ToolErrorCode } from '@candor/errors';
import { type CallAbort, type Logger, type ToolResponse } from '@candor/tools';
import CircuitBreaker from 'opossum';
import {
  type BreakerOptions,
  resolveBreakerOptions,
  type ResolvedBreakerOptions,
} from './breaker-options.ts';
import { type BreakerCallOutcome, BreakerMetrics } from './breaker-metrics.ts';
import { breakerResponses } from './breaker-responses.ts';
import { type BreakerState } from './breaker-state.ts';
import { bucketTicker, type TickerLease } from './bucket-ticker.ts';
import { CountedFailure } from './counted-failure.ts';
import { countsAsFailure } from './counts-as-failure.ts';
import { PendingCall } from './pending-call.ts';

/** What a breaker's rolling window holds right now. */
export interface BreakerWindow {
  /** Every call the breaker saw in the window, refused ones included (the rate's denominator). */
  calls: number;
  /** Calls counted as failures: counted ERROR codes, throws and backstop timeouts. */
  failures: number;
  /** Calls that ended without counting as failures (success, partial, non-counted errors). */
  successes: number;
  /** Calls refused with CIRCUIT_OPEN by the breaker's own state. */
  rejected: number;
  /** Calls the backstop timeout ended; each is also in `failures`, once. */
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

/** One real transition. `reason` is the last counted code, on a transition to `open`. */
export interface StateChange {
  name: string;
  from: BreakerState;
  to: BreakerState;
  reason?: ToolErrorCode;
}

/** Per-call options of {@link ToolBreaker.execute}. */
export interface ExecuteOptions {
  /** The caller's signal; the per-call controller is linked to it. */
  signal?: AbortSignal;
}

/** A circuit breaker for one tool. Create one with {@link createToolBreaker} or a `BreakerRegistry`. */
export interface ToolBreaker {
  readonly name: string;
  readonly state: BreakerState;
  /**
   * Runs `run` through the breaker. `run` receives a per-call AbortSignal (linked to
   * `options.signal`; aborted by the backstop timeout with a DOMException 'TimeoutError' reason).
   * It never rejects: open → CIRCUIT_OPEN response (retryAfterMs from our own open timestamp; 0
   * when half-open with a trial in flight) WITHOUT calling run; backstop timeout → TIMEOUT
   * response; a throw from run → INTERNAL_ERROR response (counted); shutdown → a CIRCUIT_OPEN
   * response saying the breaker is shut down. Success, partial and non-counted error responses
   * come back as the SAME object.
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
  forceOpen(): { release(): void };
  /** Stops the breaker for good: its timers and listeners go; later calls are refused. */
  shutdown(): void;
}

type Circuit = CircuitBreaker<[PendingCall], ToolResponse>;

function failureCode(error: unknown): ToolErrorCode | undefined {
  if (error instanceof CountedFailure && error.response.status === 'error') {
    return error.response.errorInfo.code;
  }
  return opossumCode(error) === 'ETIMEDOUT' ? 'TIMEOUT' : undefined;
}

function opossumCode(error: unknown): unknown {
  return error instanceof Error && CircuitBreaker.isOurError(error)
    ? (error as Error & { code?: unknown }).code
    : undefined;
}

class OpossumToolBreaker implements ToolBreaker {
  readonly name: string;
  readonly #options: ResolvedBreakerOptions;
  readonly #logger: Logger;
  readonly #lease: TickerLease | undefined;
  readonly #circuit: Circuit | undefined;
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
      this.#lease = bucketTicker.attach(options.windowMs / options.buckets);
      this.#circuit = this.#createCircuit(this.#lease);
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

  #createCircuit(lease: TickerLease): Circuit {
    const options = this.#options;
    const circuit: Circuit = new CircuitBreaker(
      async (call: PendingCall) => {
        const response = await call.start();
        if (countsAsFailure(response, options.failureCodes)) {
          throw new CountedFailure(response);
        }
        return response;
      },
      {
        name: this.name,
        // The backstop: never `false`, or a hanging trial leaves the breaker half-open forever.
        timeout: options.timeoutMs + options.graceMs,
        resetTimeout: options.resetTimeoutMs,
        rollingCountTimeout: options.windowMs,
        rollingCountBuckets: options.buckets,
        volumeThreshold: options.minimumCalls,
        errorThresholdPercentage: options.failureRatePct,
        rollingPercentilesEnabled: false,
        enableSnapshots: false,
        rotateBucketController: lease.controller,
        allowWarmUp: false,
        cache: false,
      },
    );
    // 'failure' is emitted before opossum decides to open, so the reason is known in time.
    circuit.on('failure', (error) => {
      this.#lastCountedCode = failureCode(error) ?? this.#lastCountedCode;
    });
    circuit.on('open', () => {
      this.#openedAt = Date.now();
      this.#publish();
    });
    circuit.on('halfOpen', () => {
      this.#publish();
    });
    circuit.on('close', () => {
      // opossum keeps the window across a close, so one failure right after recovery would
      // reopen the breaker; a recovered tool starts from a clean window instead.
      for (let i = 0; i < options.buckets; i++) lease.controller.emit('rotate');
      this.#publish();
    });
    return circuit;
  }

  get state(): BreakerState {
    if (this.#isShutdown) return 'shutdown';
    if (this.#forced > 0) return 'open';
    const circuit = this.#circuit;
    if (circuit === undefined) return 'disabled';
    if (circuit.opened) return 'open';
    if (circuit.halfOpen) return 'half_open';
    return 'closed';
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
    if (options.signal?.aborted === true) {
      return breakerResponses.cancelled(this.name, false);
    }
    if (this.#forced > 0) {
      this.#logger.debug({ state: 'open', forced: true }, 'call refused');
      this.#count('rejected');
      return breakerResponses.forcedOpen(this.name);
    }
    const call = new PendingCall({
      tool: this.name,
      run,
      signal: options.signal,
    });
    try {
      const circuit = this.#circuit;
      // A pass-through breaker records nothing, in its window or in its metrics.
      if (circuit === undefined) return await call.start();
      const response = await circuit.fire(call);
      // Counted errors never resolve here: they reject as a CountedFailure.
      this.#count(response.status === 'error' ? 'ignored' : 'success');
      return response;
    } catch (error: unknown) {
      return this.#unwrap(error, call);
    } finally {
      call.dispose();
    }
  }

  #unwrap(error: unknown, call: PendingCall): ToolResponse {
    if (error instanceof CountedFailure) {
      this.#count('failure');
      return error.response;
    }
    const code = opossumCode(error);
    switch (code) {
      case 'EOPENBREAKER':
        this.#count('rejected');
        return this.#refused();
      case 'ETIMEDOUT': {
        this.#count('failure');
        const backstopMs = this.#options.timeoutMs + this.#options.graceMs;
        call.abortForTimeout(backstopMs);
        return breakerResponses.backstopTimeout(this.name, backstopMs);
      }
      case 'ESHUTDOWN':
        this.#count('rejected');
        return breakerResponses.shutDown(this.name);
      default:
        this.#logger.error(
          { error: describeThrown(error) },
          'circuit breaker failed unexpectedly',
        );
        return breakerResponses.misuse(this.name, describeThrown(error));
    }
  }

  #refused(): ToolResponse {
    if (this.state === 'half_open') {
      this.#logger.debug(
        { state: 'half_open', retryAfterMs: 0 },
        'call refused',
      );
      return breakerResponses.trialInFlight(this.name);
    }
    const retryAfterMs = Math.max(0, this.#nextAttemptAt() - Date.now());
    this.#logger.debug({ state: 'open', retryAfterMs }, 'call refused');
    return breakerResponses.open(this.name, retryAfterMs);
  }

  #nextAttemptAt(): number {
    return this.#openedAt + this.#options.resetTimeoutMs;
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
      openedAt: this.#openedAt,
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
    // clears its reset timer. Calls still in flight finish; their backstop still applies.
    this.#circuit?.shutdown();
    this.#lease?.release();
    this.#publish();
    this.#metrics?.close();
    this.#listeners?.clear();
  }

  /** Emits a change when the observable state differs from the last one published. */
  #publish(): void {
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
    };
    this.#log(change);
    this.#metrics?.transition(from, to);
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
    const { from, to } = change;
    switch (to) {
      case 'open': {
        const { window } = this.snapshot();
        this.#logger.warn(
          {
            from,
            to,
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
        this.#logger.info({ from, to }, 'circuit half-open: one trial call');
        return;
      case 'closed':
        this.#logger.info({ from, to }, 'circuit closed: calls flow again');
        return;
      case 'disabled':
        this.#logger.info({ from, to }, 'circuit disabled: calls pass through');
        return;
      case 'shutdown':
        this.#logger.info({ from, to }, 'circuit breaker shut down');
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
