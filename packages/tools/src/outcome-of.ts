import { type ToolResponse } from './tool-response.ts';

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
