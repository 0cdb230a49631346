import { type Logger } from '@candor/tools';
import { type BreakerWindow } from './breaker-snapshot.ts';
import { type StateChange } from './state-change.ts';

/** What a transition's log line says besides the change itself. */
export interface TransitionContext {
  /** Whether the breaker shares a state store: only then is the origin worth saying. */
  readonly shared: boolean;
  /** Whether a forceOpen() hold is out. */
  readonly forced: boolean;
  /** The window now; read only for a transition to `open`. */
  readonly window: () => BreakerWindow;
}

/**
 * Logs one transition: `warn` on open (with the failure rate, the calls and the last code),
 * `info` on every other.
 */
export function logTransition(
  logger: Logger,
  change: StateChange,
  context: TransitionContext,
): void {
  // Said only where a store is shared: without one every transition is this process's.
  const base = context.shared
    ? { from: change.from, to: change.to, origin: change.origin }
    : { from: change.from, to: change.to };
  const { to } = change;
  switch (to) {
    case 'open': {
      const window = context.window();
      logger.warn(
        {
          ...base,
          forced: context.forced,
          ...(change.reason === undefined ? {} : { reason: change.reason }),
          calls: window.calls,
          failures: window.failures,
          failureRatePct: window.failureRatePct,
        },
        'circuit opened: calls are refused',
      );
      return;
    }
    case 'half_open':
      logger.info(base, 'circuit half-open: one trial call');
      return;
    case 'closed':
      logger.info(base, 'circuit closed: calls flow again');
      return;
    case 'disabled':
      logger.info(base, 'circuit disabled: calls pass through');
      return;
    case 'shutdown':
      logger.info(base, 'circuit breaker shut down');
      return;
  }
}
