import { type Logger } from '@candor/tools';
import { type ResolvedBreakerOptions } from './breaker-options.ts';
import {
  type SharedAdmission,
  type SharedChange,
  type SharedCircuit,
  type SharedView,
} from './breaker-state-store.ts';
import { onceWarning } from './once-warning.ts';

/** What {@link FleetCircuit.join} needs. */
export interface FleetJoin {
  readonly tool: string;
  readonly options: ResolvedBreakerOptions;
  /** The breaker's own logger: a failing store is said once, there. */
  readonly logger: Logger;
  /** Called on every change of the shared view. */
  readonly onChange: (change: SharedChange) => void;
}

/**
 * One tool's circuit in the configured state store, read defensively: a store that throws is
 * treated as absent for the call (the breaker decides alone), with one warning per breaker.
 */
export class FleetCircuit {
  readonly #shared: SharedCircuit;
  readonly #unsubscribe: () => void;
  readonly #storeFailed: (error: unknown) => void;

  private constructor(
    shared: SharedCircuit,
    unsubscribe: () => void,
    storeFailed: (error: unknown) => void,
  ) {
    this.#shared = shared;
    this.#unsubscribe = unsubscribe;
    this.#storeFailed = storeFailed;
  }

  /** The tool's circuit in the store, if one is configured and answers; else `undefined`. */
  static join(join: FleetJoin): FleetCircuit | undefined {
    const { options } = join;
    const store = options.store;
    if (store === undefined) return undefined;
    const storeFailed = onceWarning(
      join.logger,
      'breaker state store failed; this breaker decides alone',
    );
    let shared: SharedCircuit;
    let unsubscribe: () => void;
    try {
      shared = store.circuit(join.tool, {
        resetTimeoutMs: options.resetTimeoutMs,
        windowMs: options.windowMs,
        buckets: options.buckets,
        minimumCalls: options.minimumCalls,
        failureRatePct: options.failureRatePct,
        // The trial's lease outlives the longest a call may run under this breaker.
        leaseMs: options.timeoutMs + options.graceMs,
      });
      unsubscribe = shared.onChange(join.onChange);
    } catch (error: unknown) {
      storeFailed(error);
      return undefined;
    }
    return new FleetCircuit(shared, unsubscribe, storeFailed);
  }

  /** The shared view admissions follow now, or `local`. */
  get view(): SharedView {
    try {
      return this.#shared.view;
    } catch (error: unknown) {
      this.#storeFailed(error);
      return 'local';
    }
  }

  /** The shared record's open timestamp, while it is open. */
  get openedAt(): number | undefined {
    return this.#shared.openedAt;
  }

  /** The shared circuit's answer; `undefined` when it failed and the local breaker must decide. */
  admit(): SharedAdmission | undefined {
    try {
      return this.#shared.admit();
    } catch (error: unknown) {
      this.#storeFailed(error);
      return undefined;
    }
  }

  /** Hands an admitted call's outcome to the shared window (or trial). */
  record(admission: SharedAdmission, failed: boolean): void {
    try {
      this.#shared.record(admission, failed);
    } catch (error: unknown) {
      this.#storeFailed(error);
    }
  }

  /** Stops listening to the shared view. */
  leave(): void {
    this.#unsubscribe();
  }
}
