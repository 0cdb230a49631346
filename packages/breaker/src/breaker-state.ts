/**
 * The states a tool's breaker can be in. `disabled` passes every call through and records
 * nothing; `shutdown` is final and refuses every call.
 *
 * @example
 * ```ts
 * if (breaker.state === BreakerState.OPEN) { … }
 * ```
 */
export const BreakerState = {
  CLOSED: 'closed',
  OPEN: 'open',
  HALF_OPEN: 'half_open',
  DISABLED: 'disabled',
  SHUTDOWN: 'shutdown',
} as const;

/** closed, open, half_open, disabled or shutdown. */
export type BreakerState = (typeof BreakerState)[keyof typeof BreakerState];
