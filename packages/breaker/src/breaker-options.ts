import { describeThrown } from '@candor/errors';
import {
  allToolErrorCodes,
  codeMetadata,
  isToolErrorCode,
  type ToolErrorCode,
} from '@candor/errors';
import { guardLogger, type Logger } from '@candor/tools';
import { type Meter, metrics } from '@opentelemetry/api';
import { type BreakerStateStore } from './breaker-state-store.ts';
import { instrumentationScope } from './instrumentation-scope.ts';

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
  readonly failureCodes: ReadonlySet<ToolErrorCode>;
  readonly enabled: boolean;
  readonly logger: Logger;
  /** `undefined` when telemetry is switched off. */
  readonly meter: Meter | undefined;
  readonly store: BreakerStateStore | undefined;
}

/** The codes counted by default: those whose metadata says `countsForBreaker`. */
export const defaultFailureCodes: ReadonlySet<ToolErrorCode> = new Set(
  allToolErrorCodes.filter((code) => codeMetadata[code].countsForBreaker),
);

// The one set every default breaker shares. Private, so a caller mutating the exported copy
// through a cast cannot change what other breakers count.
const sharedDefaultCodes: ReadonlySet<ToolErrorCode> = new Set(
  defaultFailureCodes,
);

/**
 * The defaults, sized for agent tools that see a few calls a minute.
 *
 * @example
 * ```ts
 * breakerDefaults.minimumCalls; // 5
 * ```
 */
export const breakerDefaults = Object.freeze({
  timeoutMs: 30_000,
  graceMs: 1_000,
  resetTimeoutMs: 30_000,
  windowMs: 60_000,
  buckets: 6,
  minimumCalls: 5,
  failureRatePct: 50,
  enabled: true,
});

// Node clamps longer timer delays to 1 ms, which would end every call at once.
const MAX_TIMER_MS = 2_147_483_647;

const knownKeys: ReadonlySet<string> = new Set([
  'timeoutMs',
  'graceMs',
  'resetTimeoutMs',
  'windowMs',
  'buckets',
  'minimumCalls',
  'failureRatePct',
  'failureCodes',
  'enabled',
  'logger',
  'telemetry',
  'store',
]);

const loggerMethods = ['trace', 'debug', 'info', 'warn', 'error', 'child'];

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function checkNumber(
  key: string,
  value: unknown,
  rule: { min: number; minInclusive: boolean; max: number; integer: boolean },
): void {
  const range = `${rule.minInclusive ? '[' : '('}${rule.min}, ${rule.max}]`;
  const kind = rule.integer ? 'an integer' : 'a number';
  if (typeof value !== 'number') {
    throw new TypeError(
      `Breaker option "${key}" must be ${kind} in ${range}, got ${shown(value)}`,
    );
  }
  const belowMin = rule.minInclusive ? value < rule.min : value <= rule.min;
  if (
    !Number.isFinite(value) ||
    (rule.integer && !Number.isInteger(value)) ||
    belowMin ||
    value > rule.max
  ) {
    throw new RangeError(
      `Breaker option "${key}" must be ${kind} in ${range}, got ${shown(value)}`,
    );
  }
}

function checkFailureCodes(value: unknown): void {
  if (
    typeof value === 'string' ||
    typeof value !== 'object' ||
    value === null ||
    !(Symbol.iterator in value)
  ) {
    throw new TypeError(
      `Breaker option "failureCodes" must be an iterable of error codes (an array or a Set), got ${shown(value)}`,
    );
  }
  for (const code of value as Iterable<unknown>) {
    if (!isToolErrorCode(code)) {
      throw new TypeError(
        `Breaker option "failureCodes" holds ${shown(code)}, which is not an error code; expected some of ${allToolErrorCodes.join(', ')}`,
      );
    }
  }
}

function checkLogger(value: unknown): void {
  const missing =
    typeof value === 'object' && value !== null
      ? loggerMethods.filter((method) => !hasMethod(value, method))
      : loggerMethods;
  if (missing.length > 0) {
    throw new TypeError(
      `Breaker option "logger" must be a pino-compatible logger; it lacks ${missing.join(', ')}`,
    );
  }
}

// A getter or Proxy trap that throws is a logger failing, not a missing method: the breaker takes
// it and guards it, and each line it cannot write is lost, as with every other logger failure.
function hasMethod(logger: object, method: string): boolean {
  try {
    return typeof Reflect.get(logger, method) === 'function';
  } catch {
    return true;
  }
}

const meterMethods = ['createCounter', 'createObservableGauge'];

function checkTelemetry(value: unknown): void {
  if (value === false) return;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(
      `Breaker option "telemetry" must be false or an object like { meter }, got ${shown(value)}`,
    );
  }
  const missing = readOption('telemetry.meter', () => {
    const meter = (value as { meter?: unknown }).meter;
    if (meter === undefined) return [];
    return typeof meter === 'object' && meter !== null
      ? meterMethods.filter(
          (method) =>
            typeof (meter as Record<string, unknown>)[method] !== 'function',
        )
      : meterMethods;
  });
  if (missing.length > 0) {
    throw new TypeError(
      `Breaker option "telemetry.meter" must be an OpenTelemetry Meter; it lacks ${missing.join(', ')}`,
    );
  }
}

function checkStore(value: unknown): void {
  if (
    typeof value !== 'object' ||
    value === null ||
    readOption(
      'store',
      () => typeof (value as { circuit?: unknown }).circuit !== 'function',
    )
  ) {
    throw new TypeError(
      `Breaker option "store" must be a breaker state store (an object with a circuit() method, such as @candor/breaker-redis's), got ${shown(value)}`,
    );
  }
}

/**
 * Reads part of an option: a getter or Proxy trap that throws is said as a bad option, with its
 * reason, not as its own raw error.
 */
function readOption<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error: unknown) {
    throw new TypeError(
      `Breaker option "${name}" could not be read: ${describeThrown(error)}`,
      { cause: error },
    );
  }
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
  checkOptions(readOptions(options));
}

/**
 * Reads every option once into a plain object: checks and defaults then use that copy, so a
 * getter answering differently (or throwing) on a second read cannot slip past validation.
 */
function readOptions(options: BreakerOptions): BreakerOptions {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new TypeError(
      `Breaker options must be an object, got ${shown(options)}`,
    );
  }
  let entries: [string, unknown][];
  try {
    entries = Object.entries(options).filter(
      ([, value]) => value !== undefined,
    );
  } catch (error: unknown) {
    throw new TypeError(
      `Breaker options could not be read: ${describeThrown(error)}`,
      { cause: error },
    );
  }
  const read: Record<string, unknown> = Object.fromEntries(entries);
  const telemetry = read['telemetry'];
  if (typeof telemetry === 'object' && telemetry !== null) {
    // One level deeper too: the meter checked is the meter used.
    const meter = readOption(
      'telemetry.meter',
      () => (telemetry as { meter?: unknown }).meter,
    );
    read['telemetry'] = meter === undefined ? {} : { meter };
  }
  return read;
}

function checkOptions(options: BreakerOptions): void {
  const entries = Object.entries(options);
  for (const [key] of entries) {
    if (!knownKeys.has(key)) {
      throw new TypeError(
        `Unknown breaker option "${key}"; expected one of ${[...knownKeys].join(', ')}`,
      );
    }
  }
  const given = new Map<string, unknown>(entries);
  const ms = { minInclusive: false, max: MAX_TIMER_MS, integer: false };
  if (given.has('timeoutMs')) {
    checkNumber('timeoutMs', given.get('timeoutMs'), { ...ms, min: 0 });
  }
  if (given.has('graceMs')) {
    checkNumber('graceMs', given.get('graceMs'), {
      ...ms,
      min: 0,
      minInclusive: true,
    });
  }
  if (given.has('resetTimeoutMs')) {
    checkNumber('resetTimeoutMs', given.get('resetTimeoutMs'), {
      ...ms,
      min: 0,
    });
  }
  if (given.has('windowMs')) {
    checkNumber('windowMs', given.get('windowMs'), {
      ...ms,
      min: 0,
      integer: true,
    });
  }
  if (given.has('buckets')) {
    checkNumber('buckets', given.get('buckets'), {
      min: 1,
      minInclusive: true,
      max: Number.MAX_SAFE_INTEGER,
      integer: true,
    });
  }
  if (given.has('minimumCalls')) {
    checkNumber('minimumCalls', given.get('minimumCalls'), {
      min: 1,
      minInclusive: true,
      max: Number.MAX_SAFE_INTEGER,
      integer: true,
    });
  }
  if (given.has('failureRatePct')) {
    checkNumber('failureRatePct', given.get('failureRatePct'), {
      min: 0,
      minInclusive: false,
      max: 100,
      integer: false,
    });
  }
  if (given.has('failureCodes')) checkFailureCodes(given.get('failureCodes'));
  if (given.has('enabled') && typeof given.get('enabled') !== 'boolean') {
    throw new TypeError(
      `Breaker option "enabled" must be a boolean, got ${shown(given.get('enabled'))}`,
    );
  }
  if (given.has('logger')) checkLogger(given.get('logger'));
  if (given.has('telemetry')) checkTelemetry(given.get('telemetry'));
  if (given.has('store')) checkStore(given.get('store'));
  checkCombination(options);
}

function checkCombination(options: BreakerOptions): void {
  const windowMs = options.windowMs ?? breakerDefaults.windowMs;
  const buckets = options.buckets ?? breakerDefaults.buckets;
  if (windowMs % buckets !== 0) {
    throw new RangeError(
      `Breaker option "buckets" (${buckets}) must divide "windowMs" (${windowMs}) exactly, so every bucket has the same whole-millisecond width`,
    );
  }
  const timeoutMs = options.timeoutMs ?? breakerDefaults.timeoutMs;
  const graceMs = options.graceMs ?? breakerDefaults.graceMs;
  if (timeoutMs + graceMs > MAX_TIMER_MS) {
    throw new RangeError(
      `Breaker options "timeoutMs" + "graceMs" must be at most ${MAX_TIMER_MS} ms, got ${timeoutMs + graceMs}`,
    );
  }
}

/** Validates `options` and fills in every default. */
export function resolveBreakerOptions(
  given: BreakerOptions,
): ResolvedBreakerOptions {
  const options = readOptions(given);
  checkOptions(options);
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
    minimumCalls: options.minimumCalls ?? breakerDefaults.minimumCalls,
    failureRatePct: options.failureRatePct ?? breakerDefaults.failureRatePct,
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
