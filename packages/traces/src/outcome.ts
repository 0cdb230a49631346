/**
 * The whole outcome vocabulary. Unknown (`''`) is deliberately not ok: silence, calls still in
 * flight and words no table has learned all land there, so a new harness is under-reported and
 * never wrongly reported.
 *
 * @example
 * ```ts
 * if (record.outcome === Outcome.Error) alert(record);
 * ```
 */
export const Outcome = {
  Unknown: '',
  Ok: 'ok',
  Error: 'error',
} as const;

/** `''` (unknown), `'ok'` or `'error'`. */
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

const outcomes: ReadonlySet<unknown> = new Set<unknown>(Object.values(Outcome));

/** True when `value` is one of the three outcome words. */
export function isOutcome(value: unknown): value is Outcome {
  return outcomes.has(value);
}
