import {
  type ErrorResponse,
  type PartialResponse,
  type SuccessResponse,
  type ToolResponse,
} from './tool-response.ts';

/**
 * The vocabulary of events, traces, budgets and breakers. `denied` is an approval gate's refusal:
 * the call did not run, so it is never counted as a failure.
 */
export const ToolOutcome = {
  SUCCESS: 'success',
  PARTIAL: 'partial',
  ERROR: 'error',
  DENIED: 'denied',
} as const;

/** success, partial, error or denied. */
export type ToolOutcome = (typeof ToolOutcome)[keyof typeof ToolOutcome];

/**
 * The outcome of a call seen from outside, in a trace or a transcript: one of the
 * {@link ToolOutcome} words, or `unknown` when no result was recorded (the call is still in
 * flight, or was cut off) or its word was not recognised. Unknown is deliberately not success:
 * a reader that cannot tell must under-report, never wrongly report.
 *
 * @example
 * ```ts
 * if (record.outcome === ObservedOutcome.UNKNOWN) needsReview.push(record);
 * ```
 */
export const ObservedOutcome = {
  ...ToolOutcome,
  UNKNOWN: 'unknown',
} as const;

/** success, partial, error, denied or unknown. */
export type ObservedOutcome =
  (typeof ObservedOutcome)[keyof typeof ObservedOutcome];

const observedOutcomes: ReadonlySet<unknown> = new Set<unknown>(
  Object.values(ObservedOutcome),
);

/** True when `value` is one of the five {@link ObservedOutcome} words. */
export function isObservedOutcome(value: unknown): value is ObservedOutcome {
  return observedOutcomes.has(value);
}

/** True for an approval gate's refusal: status error, code ACCESS_DENIED and the denial marker. */
export function isDenied(response: ToolResponse): boolean {
  return (
    response.status === 'error' &&
    response.errorInfo.code === 'ACCESS_DENIED' &&
    response.errorInfo.denied === true
  );
}

/**
 * What happened to a call, in one word.
 *
 * @example
 * ```ts
 * outcomeOf(ToolResponse.denied('The user said no')); // 'denied'
 * outcomeOf(ToolResponse.error('ACCESS_DENIED', 'outside the workspace')); // 'error'
 * ```
 */
export function outcomeOf(response: ToolResponse): ToolOutcome {
  switch (response.status) {
    case 'success':
      return 'success';
    case 'partial':
      return 'partial';
    case 'error':
      return isDenied(response) ? 'denied' : 'error';
  }
}

// A phantom key no value has. `error` and `denied` share ErrorResponse, so a plain
// `response is ErrorResponse` would let `!isOutcome(r, 'error')` wrongly drop denials from the
// else branch; the mark keeps that branch a full ToolResponse.
declare const outcomeMark: unique symbol;

/**
 * The response type each outcome word implies: `error` and `denied` both carry `errorInfo`.
 */
export type ResponseOfOutcome<O extends ToolOutcome> = O extends 'success'
  ? SuccessResponse
  : O extends 'partial'
    ? PartialResponse
    : ErrorResponse & { readonly [outcomeMark]: O };

/**
 * True when {@link outcomeOf} would say `outcome`, and a type guard: inside the branch the
 * response is narrowed, so `errorInfo` or `reason` is reachable without a second status check.
 * `outcomeOf(r) === 'error'` cannot narrow `r` (TypeScript narrows only through a predicate).
 *
 * @example
 * ```ts
 * if (isOutcome(response, 'error')) console.log(response.errorInfo.code);
 * if (isOutcome(response, 'partial')) console.log(response.reason);
 * ```
 */
export function isOutcome<O extends ToolOutcome>(
  response: ToolResponse,
  outcome: O,
): response is ResponseOfOutcome<O> {
  return outcomeOf(response) === outcome;
}
