/**
 * Checks a numeric option given to a tool factory, e.g. `readFileTool: maxBytes`: a bad value
 * fails at construction with a message naming the option, never later inside a call.
 */
export function positiveOption(
  label: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(
      `${label} must be a positive finite number, got ${String(value)}`,
    );
  }
  return value;
}
