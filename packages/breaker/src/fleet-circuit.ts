import { type Logger } from '@candor/tools';
import { type ResolvedBreakerOptions } from './breaker-options.ts';
import {
  type SharedAdmission,
  type SharedChange,
  type SharedCircuit,
  type SharedCircuitRules,
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
  readonly #slowCallMs: number | undefined;

  private constructor(
    shared: SharedCircuit,
    unsubscribe: () => void,
    own: {
      readonly storeFailed: (error: unknown) => void;
      readonly slowCallMs: number | undefined;
    },
  ) {
    this.#shared = shared;
    this.#unsubscribe = unsubscribe;
    this.#storeFailed = own.storeFailed;
    this.#slowCallMs = own.slowCallMs;
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
      shared = store.circuit(join.tool, sharedRules(options));
      unsubscribe = shared.onChange(join.onChange);
    } catch (error: unknown) {
      storeFailed(error);
      return undefined;
    }
    return new FleetCircuit(shared, unsubscribe, {
      storeFailed,
      slowCallMs: options.slowCallMs,
    });
  }

  /** When a call admitted now started; no clock read unless slow calls count. */
  startedAt(): number {
    // The monotonic clock, as the local policy's: a stepped wall clock must not make a call slow.
    return this.#slowCallMs === undefined ? 0 : performance.now();
  }

  /** Whether a call that started at `startedAt` and ends now took longer than `slowCallMs`. */
  isSlow(startedAt: number): boolean {
    const limit = this.#slowCallMs;
    return limit !== undefined && performance.now() - startedAt > limit;
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
  record(admission: SharedAdmission, failed: boolean, slow: boolean): void {
    try {
      // Said only when slow calls count, so a store without the rule sees what it always saw.
      if (this.#slowCallMs === undefined)
        this.#shared.record(admission, failed);
      else this.#shared.record(admission, failed, slow);
    } catch (error: unknown) {
      this.#storeFailed(error);
    }
  }

  /** Stops listening to the shared view. */
  leave(): void {
    this.#unsubscribe();
  }
}

/**
 * The breaker's rules as the store follows them. The policies' rules are there only when asked
 * for, so a store that predates them sees the rules it always saw.
 */
export function sharedRules(
  options: ResolvedBreakerOptions,
): SharedCircuitRules {
  return {
    resetTimeoutMs: options.resetTimeoutMs,
    windowMs: options.windowMs,
    buckets: options.buckets,
    minimumCalls: options.minimumCalls,
    failureRatePct: options.failureRatePct,
    // The trial's lease outlives the longest a call may run under this breaker.
    leaseMs: options.timeoutMs + options.graceMs,
    ...(options.slowCallMs === undefined
      ? {}
      : { slowCallRatePct: options.slowCallRatePct }),
    ...(options.windowCalls === undefined
      ? {}
      : { windowCalls: options.windowCalls }),
    ...(options.permittedCallsInHalfOpen === 1
      ? {}
      : { permittedCallsInHalfOpen: options.permittedCallsInHalfOpen }),
  };
}
