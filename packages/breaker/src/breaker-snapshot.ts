import { type BreakerState } from './breaker-state.ts';

/** What a breaker's rolling window holds right now. */
export interface BreakerWindow {
  /** Every call that ended in the window, and every refusal (the rate's denominator). */
  calls: number;
  /** Calls counted as failures: counted ERROR codes, throws and deadline timeouts. */
  failures: number;
  /** Calls that ended without counting as failures (success, partial, non-counted errors). */
  successes: number;
  /** Calls refused with CIRCUIT_OPEN by the breaker's own state. */
  rejected: number;
  /** Calls their deadline ended, while `TIMEOUT` counts as a failure; each is also in `failures`, once. */
  timeouts: number;
  /** `failures / calls * 100`, or 0 for an empty window. */
  failureRatePct: number;
}

/** A point-in-time view of one breaker. */
export interface BreakerSnapshot {
  name: string;
  state: BreakerState;
  /** When the breaker opened (Date.now()), while it is open. */
  openedAt?: number;
  /** When the breaker will let a trial call through, while it is open and not forced. */
  nextAttemptAt?: number;
  window: BreakerWindow;
}

/** The counts of opossum's `stats` that a window is made of. */
interface WindowStats {
  readonly fires: number;
  readonly failures: number;
  readonly successes: number;
  readonly rejects: number;
  readonly timeouts: number;
}

/** The window of opossum's rolling stats; empty for a breaker without a circuit. */
export function windowOf(stats: WindowStats | undefined): BreakerWindow {
  const calls = stats?.fires ?? 0;
  const failures = stats?.failures ?? 0;
  return {
    calls,
    failures,
    successes: stats?.successes ?? 0,
    rejected: stats?.rejects ?? 0,
    timeouts: stats?.timeouts ?? 0,
    failureRatePct: calls === 0 ? 0 : (failures / calls) * 100,
  };
}
