import { type ToolErrorCode } from '@candor/errors';
import { type BreakerState } from './breaker-state.ts';

/** Who decided a transition: this process, or the fleet sharing its state store. */
export type TransitionOrigin = 'process' | 'fleet';

/**
 * One real transition. `reason` is the last counted code, on a transition to `open`. `origin` is
 * `process` when this process decided it (its own breaker, or its own outcome in a shared
 * store), `fleet` when another process's outcome in the shared store did, or the store went away
 * or came back.
 */
export interface StateChange {
  name: string;
  from: BreakerState;
  to: BreakerState;
  reason?: ToolErrorCode;
  origin: TransitionOrigin;
}
