import { allToolErrorCodes, isToolErrorCode } from '@candor/errors';
import {
  breakerDefaults,
  MAX_TIMER_MS,
  MAX_WINDOW_CALLS,
} from './breaker-defaults.ts';
import {
  type BreakerStateStore,
  type SharedCircuitRules,
} from './breaker-state-store.ts';
import { readOption, shown } from './read-breaker-options.ts';

const knownKeys: ReadonlySet<string> = new Set([
  'timeoutMs',
  'graceMs',
  'resetTimeoutMs',
  'windowMs',
  'buckets',
  'minimumCalls',
  'failureRatePct',
  'windowCalls',
  'slowCallMs',
  'slowCallRatePct',
  'permittedCallsInHalfOpen',
  'failureCodes',
  'enabled',
  'logger',
  'telemetry',
  'store',
]);

const loggerMethods = ['trace', 'debug', 'info', 'warn', 'error', 'child'];

const meterMethods = ['createCounter', 'createObservableGauge'];

interface NumberRule {
  readonly min: number;
  readonly minInclusive: boolean;
  readonly max: number;
  readonly integer: boolean;
}

const ms: NumberRule = {
  min: 0,
  minInclusive: false,
  max: MAX_TIMER_MS,
  integer: false,
};

const count: NumberRule = {
  min: 1,
  minInclusive: true,
  max: Number.MAX_SAFE_INTEGER,
  integer: true,
};

const pct: NumberRule = {
  min: 0,
  minInclusive: false,
  max: 100,
  integer: false,
};

// In the order they are checked: the first bad one is the one named.
const numberRules: readonly (readonly [string, NumberRule])[] = [
  ['timeoutMs', ms],
  ['graceMs', { ...ms, minInclusive: true }],
  ['resetTimeoutMs', ms],
  ['windowMs', { ...ms, integer: true }],
  ['buckets', count],
  ['minimumCalls', count],
  ['failureRatePct', pct],
  ['windowCalls', { ...count, max: MAX_WINDOW_CALLS }],
  ['slowCallMs', ms],
  ['slowCallRatePct', pct],
  // Each trial's outcome is tallied until all are in: more than a window's worth is a mistake.
  ['permittedCallsInHalfOpen', { ...count, max: MAX_WINDOW_CALLS }],
];

function checkNumber(key: string, value: unknown, rule: NumberRule): void {
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

/** Options the number checks passed: each is a number, or absent. */
function numberOf(
  options: Readonly<Record<string, unknown>>,
  key: string,
): number | undefined {
  return options[key] as number | undefined;
}

/** The policies' options (resilience4j's count window and slow calls) that only go together. */
function checkPolicies(options: Readonly<Record<string, unknown>>): void {
  const windowCalls = numberOf(options, 'windowCalls');
  if (windowCalls !== undefined) {
    for (const key of ['windowMs', 'buckets']) {
      if (key in options) {
        throw new TypeError(
          `Breaker options "windowCalls" and "${key}" describe two kinds of window (the last N calls, or the last windowMs); give one of them`,
        );
      }
    }
    const minimumCalls = numberOf(options, 'minimumCalls');
    if (minimumCalls !== undefined && minimumCalls > windowCalls) {
      throw new RangeError(
        `Breaker option "minimumCalls" (${minimumCalls}) must be at most "windowCalls" (${windowCalls}), or the window could never hold enough calls to open`,
      );
    }
  }
  if ('slowCallRatePct' in options && !('slowCallMs' in options)) {
    throw new TypeError(
      'Breaker option "slowCallRatePct" needs "slowCallMs" (how long a call may take before it counts as slow)',
    );
  }
  checkStoreRules(options);
}

/** A store that cannot follow the policies asked for says so (see `checkRules`). */
function checkStoreRules(options: Readonly<Record<string, unknown>>): void {
  const store = options['store'] as BreakerStateStore | undefined;
  const check: unknown = readOption(
    'store',
    () => (store as { checkRules?: unknown } | undefined)?.checkRules,
  );
  if (store === undefined || typeof check !== 'function') return;
  const rules: Partial<Record<keyof SharedCircuitRules, number>> = {};
  const windowCalls = numberOf(options, 'windowCalls');
  if (windowCalls !== undefined) rules.windowCalls = windowCalls;
  if ('slowCallMs' in options) {
    rules.slowCallRatePct =
      numberOf(options, 'slowCallRatePct') ?? breakerDefaults.slowCallRatePct;
  }
  const permitted = numberOf(options, 'permittedCallsInHalfOpen');
  if (permitted !== undefined && permitted > 1) {
    rules.permittedCallsInHalfOpen = permitted;
  }
  if (Object.keys(rules).length > 0) Reflect.apply(check, store, [rules]);
}

function checkCombination(options: Readonly<Record<string, unknown>>): void {
  checkPolicies(options);
  const windowMs = numberOf(options, 'windowMs') ?? breakerDefaults.windowMs;
  const buckets = numberOf(options, 'buckets') ?? breakerDefaults.buckets;
  if (windowMs % buckets !== 0) {
    throw new RangeError(
      `Breaker option "buckets" (${buckets}) must divide "windowMs" (${windowMs}) exactly, so every bucket has the same whole-millisecond width`,
    );
  }
  const timeoutMs = numberOf(options, 'timeoutMs') ?? breakerDefaults.timeoutMs;
  const graceMs = numberOf(options, 'graceMs') ?? breakerDefaults.graceMs;
  if (timeoutMs + graceMs > MAX_TIMER_MS) {
    throw new RangeError(
      `Breaker options "timeoutMs" + "graceMs" must be at most ${MAX_TIMER_MS} ms, got ${timeoutMs + graceMs}`,
    );
  }
}

/**
 * Throws a clear `TypeError` or `RangeError` naming the first bad option of `options` (as
 * {@link readBreakerOptions} read it) and its allowed range. Unknown keys are refused too, so a
 * misspelt option is never silently ignored.
 */
export function checkBreakerOptions(
  options: Readonly<Record<string, unknown>>,
): void {
  const given = new Map<string, unknown>(Object.entries(options));
  for (const key of given.keys()) {
    if (!knownKeys.has(key)) {
      throw new TypeError(
        `Unknown breaker option "${key}"; expected one of ${[...knownKeys].join(', ')}`,
      );
    }
  }
  for (const [key, rule] of numberRules) {
    if (given.has(key)) checkNumber(key, given.get(key), rule);
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
