/**
 * What reading a foreign object gave: the value read, or what the read threw. A getter, a Proxy
 * trap or `Object.keys` may throw anything, so the failure is kept as thrown, for a caller to
 * describe (`describeThrown`) and to chain as the `cause` of its own error.
 */
export type ForeignRead<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };

/**
 * Runs one read of a foreign object (a field, a trap, a key list) and returns what it threw
 * instead of throwing it: the one place a package turns "the read failed" into a value, so each
 * says it in its own words (a bad option, an invalid response) and none lets a raw trap error out.
 *
 * @example
 * ```ts
 * const meter = readForeign(() => telemetry.meter);
 * if (!meter.ok) throw new TypeError(`"telemetry.meter" could not be read`, { cause: meter.error });
 * ```
 */
export function readForeign<T>(read: () => T): ForeignRead<T> {
  try {
    return { ok: true, value: read() };
  } catch (error: unknown) {
    return { ok: false, error };
  }
}

/**
 * Reads one property of anything, without letting a throwing getter or Proxy trap escape: a
 * primitive, `null` or a read that throws gives `undefined`. For facts that are optional anyway
 * (an error's `code`, `cause` or `status`), where a failed read means "not there".
 */
export function readProperty(value: unknown, key: PropertyKey): unknown {
  if (
    (typeof value !== 'object' && typeof value !== 'function') ||
    value === null
  ) {
    return undefined;
  }
  try {
    return (value as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * Reads an object's own enumerable string-keyed fields once each, in key order, into a plain
 * object: what `Object.fromEntries(Object.entries(value))` gives, with fields whose value is
 * `undefined` left out (as if not given). Checks and defaults then use the copy, so a getter that
 * answers differently (or throws) on a second read cannot slip past a check. A `__proto__` key
 * stays an own field of the copy, never its prototype. A throwing getter or Proxy trap gives
 * `ok: false` with what it threw.
 */
export function readOwnFields(
  value: object,
): ForeignRead<Record<string, unknown>> {
  return readForeign(() => {
    const copy: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (field === undefined) continue;
      // Defined, not assigned: assigning `__proto__` would set the copy's prototype.
      Object.defineProperty(copy, key, {
        value: field,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  });
}
