import { describeThrown, readForeign, readOwnFields } from '@candor/errors';

/** A value as an option's error message shows it: never the contents of an object. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Reads part of an option: a getter or Proxy trap that throws is said as a bad option, with its
 * reason, not as its own raw error.
 */
export function readOption<T>(name: string, read: () => T): T {
  const got = readForeign(read);
  if (got.ok) return got.value;
  throw new TypeError(
    `Breaker option "${name}" could not be read: ${describeThrown(got.error)}`,
    { cause: got.error },
  );
}

/**
 * Reads every option once into a plain object (`readOwnFields` from `@candor/errors`, the one
 * reader every package uses): checks and defaults then use that copy, so a getter answering
 * differently (or throwing) on a second read cannot slip past validation. Options left
 * `undefined` are left out, as if not given.
 */
export function readBreakerOptions(options: unknown): Record<string, unknown> {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `Breaker options must be an object, got ${shown(options)}`,
    );
  }
  const own = readOwnFields(options);
  if (!own.ok) {
    throw new TypeError(
      `Breaker options could not be read: ${describeThrown(own.error)}`,
      { cause: own.error },
    );
  }
  const read = own.value;
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
