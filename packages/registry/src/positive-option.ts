/**
 * A positive finite option, or `fallback` when it is not set; a RangeError naming the option for
 * anything else.
 */
export function positiveOption(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(
      `ToolRegistry: ${name} must be a positive finite number, got ${String(value)}`,
    );
  }
  return value;
}

/** A per-call value read leniently: `fallback` unless it is a positive finite number. */
export function positiveOr(
  value: number | undefined,
  fallback: number,
): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0
    ? value
    : fallback;
}
