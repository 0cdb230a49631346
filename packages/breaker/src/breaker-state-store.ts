/**
 * The seam a shared breaker state plugs into (one circuit per tool across a fleet of processes).
 * `@candor/breaker-redis` implements it; the breaker only reads a local view of it per call and
 * hands it each admitted call's outcome, so no call waits on the store.
 */

/** The rules one tool's shared circuit follows: the local breaker's, applied to the fleet. */
export interface SharedCircuitRules {
  /** How long the circuit stays open before the fleet's half-open trial calls. */
  readonly resetTimeoutMs: number;
  /** Length of the shared rolling window. */
  readonly windowMs: number;
  /** Buckets the window is sliced into; divides `windowMs`. */
  readonly buckets: number;
  /** Calls the shared window must hold before the circuit may open. */
  readonly minimumCalls: number;
  /** Opens when the shared failure rate is strictly above this percentage. */
  readonly failureRatePct: number;
  /** How long the trial lease lasts if its holder never reports (it died or hangs). */
  readonly leaseMs: number;
  /**
   * Only when the breaker counts slow calls (`slowCallMs`): opens when the shared window's slow
   * calls are at or above this percentage; each recorded outcome then says whether it was slow.
   */
  readonly slowCallRatePct?: number;
  /** Only for a count window: the shared window is the fleet's last `windowCalls` calls. */
  readonly windowCalls?: number;
  /** Only when more than 1: trial calls let through at once while half-open, fleet-wide. */
  readonly permittedCallsInHalfOpen?: number;
}

/**
 * What the shared circuit says about one call:
 * - `local`: the store is not usable now; the local breaker decides, as without a store;
 * - `run`: the shared circuit is closed; run the call and record it;
 * - `trial`: this call is one of the fleet's half-open trials (one, or up to
 *   `permittedCallsInHalfOpen` fleet-wide); run it and record it;
 * - `refuse`: the shared circuit is open (or its trial runs elsewhere); do not run the call.
 */
export type SharedAdmission =
  | { readonly kind: 'local' }
  | { readonly kind: 'run' }
  | { readonly kind: 'trial'; readonly token: string }
  | {
      readonly kind: 'refuse';
      readonly state: 'open' | 'half_open';
      readonly retryAfterMs: number;
    };

/** Where a circuit's admissions come from: a shared state, or `local` while the store is not usable. */
export type SharedView = 'closed' | 'open' | 'half_open' | 'local';

/**
 * One change of a tool's shared view. `origin` is `process` when this process's own outcome or
 * trial decided it, `fleet` when another process's did (or the store went away or came back).
 */
export interface SharedChange {
  readonly tool: string;
  readonly from: SharedView;
  readonly to: SharedView;
  readonly origin: 'process' | 'fleet';
}

/** One tool's circuit in a {@link BreakerStateStore}, read from a local view. */
export interface SharedCircuit {
  /** The view admissions are read from now. */
  readonly view: SharedView;
  /**
   * Admits or refuses one call from the local view, synchronously: no call waits on the store.
   * When the fleet's trial is due the call is refused (`half_open`) and the lease is asked for in
   * the background; once granted, a later call of this process gets `trial`.
   */
  admit(): SharedAdmission;
  /**
   * Records an admitted call's outcome (`failed`: the breaker's rules count it as a failure;
   * `slow`: it took longer than `slowCallMs`, always `false` unless the rules have a slow rate).
   */
  record(admission: SharedAdmission, failed: boolean, slow?: boolean): void;
  /** The shared record's open timestamp (the store's clock, in ms), while it is open. */
  readonly openedAt?: number | undefined;
  /** Calls `listener` on every change of the view. Returns an unsubscribe function. */
  onChange(listener: (change: SharedChange) => void): () => void;
}

/**
 * Where breakers keep a state shared with other processes. Pass one as the breaker option
 * `store` (or a `ToolRegistry`'s `breaker: { store }`): each tool's breaker asks it for its
 * circuit once, when the breaker is created.
 *
 * @example
 * ```ts
 * import { createRedisBreakerStore } from '@candor/breaker-redis';
 * const store = createRedisBreakerStore({ url: process.env.REDIS_URL, keyPrefix: 'myapp:' });
 * await store.connect();
 * const registry = new ToolRegistry({ breaker: { store } });
 * ```
 */
export interface BreakerStateStore {
  /** The shared circuit of one tool, made on first use with `rules`. */
  circuit(tool: string, rules: SharedCircuitRules): SharedCircuit;
  /**
   * Throws a `TypeError` naming a rule this store cannot follow. Called when a breaker's options
   * are checked, with the rules beyond the time window that they ask for, so a breaker is refused
   * at once rather than decided by other rules than it was given.
   */
  checkRules?(rules: Partial<SharedCircuitRules>): void;
}
