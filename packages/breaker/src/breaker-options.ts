import { type ToolErrorCode } from '@candor/errors';
import { guardLogger, type Logger } from '@candor/tools';
import { type Meter, metrics } from '@opentelemetry/api';
import { breakerDefaults, sharedDefaultCodes } from './breaker-defaults.ts';
import { type BreakerStateStore } from './breaker-state-store.ts';
import { checkBreakerOptions } from './check-breaker-options.ts';
import { instrumentationScope } from './instrumentation-scope.ts';
import { readBreakerOptions } from './read-breaker-options.ts';

export { breakerDefaults, defaultFailureCodes } from './breaker-defaults.ts';

/** Where a breaker's metrics go. */
export interface BreakerTelemetryOptions {
  /**
   * The meter the breaker's instruments are created on. Default: the global meter
   * `@candor/breaker`, taken when the breaker is created (a no-op unless the application has
   * registered a MeterProvider by then).
   */
  readonly meter?: Meter;
}

/** How one tool's breaker behaves. Every field is optional; see {@link breakerDefaults}. */
export interface BreakerOptions {
  /**
   * The tool's own time budget in ms. `execute()` ends a call at `timeoutMs + graceMs`; callers
   * of `admit()` (the registry) own their call's deadline instead. Default 30 000.
   */
  timeoutMs?: number;
  /** Extra ms `execute()` waits past `timeoutMs`. Default 1 000. */
  graceMs?: number;
  /** How long the breaker stays open before it lets one trial call through. Default 30 000. */
  resetTimeoutMs?: number;
  /** Length of the rolling window the failure rate is computed over. Default 60 000. */
  windowMs?: number;
  /** Number of buckets the window is sliced into; must divide `windowMs`. Default 6. */
  buckets?: number;
  /** Calls the window must hold before the breaker may open. Default 5. */
  minimumCalls?: number;
  /** Opens when the failure rate is strictly above this percentage. Default 50. */
  failureRatePct?: number;
  /**
   * A count window instead of a time window: the rates are over the last `windowCalls` calls
   * (resilience4j's `COUNT_BASED`), however old. Not with `windowMs` or `buckets`;
   * `minimumCalls` defaults to the smaller of 5 and this. Default: the time window.
   */
  windowCalls?: number;
  /**
   * A call that takes longer than this (ms, from `admit()` to `record()`) is slow, whatever its
   * outcome (resilience4j's `slowCallDurationThreshold`). Default: no call is slow.
   */
  slowCallMs?: number;
  /**
   * With `slowCallMs`: opens when slow calls are **at or above** this percentage of the window
   * (resilience4j's `slowCallRateThreshold`, and its rule). Default 100.
   */
  slowCallRatePct?: number;
  /**
   * Trial calls let through at once while half-open (resilience4j's
   * `permittedNumberOfCallsInHalfOpenState`). Once they all ended the circuit closes, unless their
   * failures (or slow calls) reach `failureRatePct` (or `slowCallRatePct`) of them, which reopens it
   * as soon as it is certain. Default 1: one trial; its failure reopens, its success closes.
   */
  permittedCallsInHalfOpen?: number;
  /**
   * Codes that count as a failure of the tool's health. Default: every code whose metadata says
   * `countsForBreaker`. `CIRCUIT_OPEN` is never counted, even when listed.
   */
  failureCodes?: Iterable<ToolErrorCode>;
  /** `false` makes the breaker a pass-through that records nothing. Default `true`. */
  enabled?: boolean;
  /** A pino-compatible logger. Default: silent. */
  logger?: Logger;
  /** OpenTelemetry metrics: `{ meter }`, or `false` to record none. Default: the global meter. */
  telemetry?: BreakerTelemetryOptions | false;
  /**
   * A state shared with other processes (`@candor/breaker-redis`): while it is usable the fleet's
   * circuit decides, from a local view; while it is not, this breaker decides alone. Default: none.
   */
  store?: BreakerStateStore;
}

/** {@link BreakerOptions} with every default filled in. */
export interface ResolvedBreakerOptions {
  readonly timeoutMs: number;
  readonly graceMs: number;
  readonly resetTimeoutMs: number;
  readonly windowMs: number;
  readonly buckets: number;
  readonly minimumCalls: number;
  readonly failureRatePct: number;
  /** `undefined` for the time window. */
  readonly windowCalls: number | undefined;
  /** `undefined` when no call is slow. */
  readonly slowCallMs: number | undefined;
  readonly slowCallRatePct: number;
  readonly permittedCallsInHalfOpen: number;
  readonly failureCodes: ReadonlySet<ToolErrorCode>;
  readonly enabled: boolean;
  readonly logger: Logger;
  /** `undefined` when telemetry is switched off. */
  readonly meter: Meter | undefined;
  readonly store: BreakerStateStore | undefined;
}

/**
 * Throws a clear `TypeError` or `RangeError` naming the first bad option and its allowed range.
 * Unknown keys are refused too, so a misspelt option is never silently ignored.
 *
 * @example
 * ```ts
 * validateBreakerOptions({ failureRatePct: 0 });
 * // RangeError: Breaker option "failureRatePct" must be a number in (0, 100], got 0
 * ```
 */
export function validateBreakerOptions(options: BreakerOptions): void {
  readChecked(options);
}

/** Reads every option once, then checks that copy: what was checked is what is used. */
function readChecked(given: BreakerOptions): BreakerOptions {
  const read = readBreakerOptions(given);
  // Checked key by key against the types of BreakerOptions, so the copy is one.
  checkBreakerOptions(read);
  return read;
}

/** Validates `options` and fills in every default. */
export function resolveBreakerOptions(
  given: BreakerOptions,
): ResolvedBreakerOptions {
  const options = readChecked(given);
  // The default set is shared (it never holds CIRCUIT_OPEN): thousands of breakers need one copy.
  let failureCodes = sharedDefaultCodes;
  if (options.failureCodes !== undefined) {
    const own = new Set(options.failureCodes);
    // A rejection by a breaker says nothing about the tool's health; counting it would let
    // breakers keep each other open.
    own.delete('CIRCUIT_OPEN');
    failureCodes = own;
  }
  return {
    timeoutMs: options.timeoutMs ?? breakerDefaults.timeoutMs,
    graceMs: options.graceMs ?? breakerDefaults.graceMs,
    resetTimeoutMs: options.resetTimeoutMs ?? breakerDefaults.resetTimeoutMs,
    windowMs: options.windowMs ?? breakerDefaults.windowMs,
    buckets: options.buckets ?? breakerDefaults.buckets,
    minimumCalls:
      options.minimumCalls ??
      Math.min(
        breakerDefaults.minimumCalls,
        options.windowCalls ?? Number.POSITIVE_INFINITY,
      ),
    failureRatePct: options.failureRatePct ?? breakerDefaults.failureRatePct,
    windowCalls: options.windowCalls,
    slowCallMs: options.slowCallMs,
    slowCallRatePct: options.slowCallRatePct ?? breakerDefaults.slowCallRatePct,
    permittedCallsInHalfOpen:
      options.permittedCallsInHalfOpen ??
      breakerDefaults.permittedCallsInHalfOpen,
    failureCodes,
    enabled: options.enabled ?? breakerDefaults.enabled,
    // Guarded: the breaker logs inside record() and in timers, where a throw would cost a call.
    logger: guardLogger(options.logger),
    meter:
      options.telemetry === false
        ? undefined
        : (options.telemetry?.meter ??
          metrics.getMeter(
            instrumentationScope.name,
            instrumentationScope.version,
          )),
    store: options.store,
  };
}
