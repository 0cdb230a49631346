import { type FleetRecord, type FleetState } from './fleet-record.ts';

/** The rules one tool's shared circuit follows: the local breaker's, applied to the fleet. */
export interface FleetRules {
  /** How long the circuit stays open before the fleet's one trial call. */
  readonly resetTimeoutMs: number;
  /** Length of the shared rolling window. */
  readonly windowMs: number;
  /** Buckets the window is sliced into; must divide `windowMs`. */
  readonly buckets: number;
  /** Calls the shared window must hold before the circuit may open. */
  readonly minimumCalls: number;
  /** Opens when the shared failure rate is strictly above this percentage. */
  readonly failureRatePct: number;
  /** How long the trial lease lasts if its holder never reports (it died or hangs). */
  readonly leaseMs: number;
}

/**
 * What the fleet says about one call:
 * - `local`: the store is not usable now; the local breaker decides, as without a store;
 * - `run`: the fleet's circuit is closed; run the call and {@link FleetCircuit.record} it;
 * - `trial`: this process holds the fleet's one half-open trial; run it and record it;
 * - `refuse`: the fleet's circuit is open (or its trial runs elsewhere); do not run the call.
 */
export type FleetAdmission =
  | { readonly kind: 'local' }
  | { readonly kind: 'run' }
  | { readonly kind: 'trial'; readonly token: string }
  | {
      readonly kind: 'refuse';
      readonly state: 'open' | 'half_open';
      readonly retryAfterMs: number;
    };

/** Where a circuit's admission comes from: a fleet state, or `local` while the store is unusable. */
export type FleetView = FleetState | 'local';

/**
 * One change of a tool's fleet view. `origin` is `process` when this process's own outcome or
 * trial decided it, `fleet` when another process's did (or the store went away or came back).
 */
export interface FleetChange {
  readonly tool: string;
  readonly from: FleetView;
  readonly to: FleetView;
  readonly origin: 'process' | 'fleet';
}

/** What a circuit needs from its store. */
export interface FleetCircuitHost {
  readonly processId: string;
  /** Whether the store is connected, synchronised and answering. */
  usable(): boolean;
  /** The server's clock, estimated locally. */
  serverNow(): number;
  /** Asks for the outcomes to be written soon, in a batch. */
  scheduleFlush(circuit: FleetCircuit): void;
  acquireTrial(circuit: FleetCircuit, token: string): Promise<boolean>;
  settleTrial(circuit: FleetCircuit, token: string, failed: boolean): void;
  onListenerError(error: unknown): void;
}

let trialCounter = 0;

/**
 * One tool's circuit as the fleet sees it, read from a local view: admitting a call costs no
 * round trip, except the one call that asks for the fleet's half-open trial.
 */
export class FleetCircuit {
  readonly tool: string;
  readonly rules: FleetRules;
  readonly #host: FleetCircuitHost;
  #record: FleetRecord | undefined;
  #published: FleetView = 'local';
  #acquiring: Promise<FleetAdmission> | undefined;
  #heldTrial: string | undefined;
  #listeners: Set<(change: FleetChange) => void> | undefined;
  /** Outcomes not yet written. */
  pendingCalls = 0;
  pendingFailures = 0;

  constructor(tool: string, rules: FleetRules, host: FleetCircuitHost) {
    this.tool = tool;
    this.rules = rules;
    this.#host = host;
  }

  /** The view admissions are read from now. */
  get view(): FleetView {
    if (!this.#host.usable() || this.#record === undefined) return 'local';
    return this.#record.state;
  }

  /** The shared record last seen, if any. */
  get shared(): FleetRecord | undefined {
    return this.#record;
  }

  /**
   * Admits or refuses one call. Synchronous from the local view, except when the fleet's trial
   * is due: then one round trip (bounded by the store's command timeout) asks for the lease.
   */
  admit(): FleetAdmission | Promise<FleetAdmission> {
    const record = this.#record;
    if (!this.#host.usable() || record === undefined) return LOCAL;
    switch (record.state) {
      case 'closed':
        return RUN;
      case 'open': {
        const due = (record.openedAt ?? 0) + this.rules.resetTimeoutMs;
        const wait = due - this.#host.serverNow();
        if (wait > 0) return refuse('open', wait);
        return this.#trial();
      }
      case 'half_open': {
        const leaseEnd = (record.leaseAt ?? 0) + (record.leaseMs ?? 0);
        if (
          this.#heldTrial !== undefined ||
          leaseEnd > this.#host.serverNow()
        ) {
          return refuse('half_open', 0);
        }
        // The trial's holder never reported and its lease has run out: take it over.
        return this.#trial();
      }
    }
  }

  #trial(): FleetAdmission | Promise<FleetAdmission> {
    if (this.#acquiring !== undefined || this.#heldTrial !== undefined) {
      return refuse('half_open', 0);
    }
    trialCounter += 1;
    const token = `${this.#host.processId}#${trialCounter}`;
    const acquiring = this.#host
      .acquireTrial(this, token)
      .then((granted): FleetAdmission => {
        if (granted) {
          this.#heldTrial = token;
          return { kind: 'trial', token };
        }
        return this.admitAfterRefusal();
      });
    this.#acquiring = acquiring;
    void acquiring.finally(() => {
      this.#acquiring = undefined;
    });
    return acquiring;
  }

  /** After a refused lease: what the (now updated) view says, without asking again. */
  admitAfterRefusal(): FleetAdmission {
    const record = this.#record;
    if (!this.#host.usable() || record === undefined) return LOCAL;
    if (record.state === 'closed') return RUN;
    if (record.state === 'open') {
      const due = (record.openedAt ?? 0) + this.rules.resetTimeoutMs;
      return refuse('open', Math.max(0, due - this.#host.serverNow()));
    }
    return refuse('half_open', 0);
  }

  /**
   * Records the outcome of a call the fleet admitted. `failed` is whether the local breaker's
   * rules count it as a failure. Outcomes of `run` calls are written in batches; a trial's
   * result is written at once, and decides for the whole fleet.
   */
  record(admission: FleetAdmission, failed: boolean): void {
    switch (admission.kind) {
      case 'run':
        this.pendingCalls += 1;
        if (failed) this.pendingFailures += 1;
        this.#host.scheduleFlush(this);
        return;
      case 'trial':
        if (this.#heldTrial === admission.token) this.#heldTrial = undefined;
        this.#host.settleTrial(this, admission.token, failed);
        return;
      case 'local':
      case 'refuse':
        return;
    }
  }

  /** Takes a record read from the store, if it is newer than the one held. */
  apply(
    record: FleetRecord | undefined,
    options: { force?: boolean } = {},
  ): void {
    const held = this.#record;
    if (
      options.force === true ||
      held === undefined ||
      record === undefined ||
      record.epoch >= held.epoch
    ) {
      this.#record = record;
    }
    this.publish();
  }

  /** Tells listeners when the view differs from the last one told. */
  publish(): void {
    const to = this.view;
    const from = this.#published;
    if (to === from) return;
    this.#published = to;
    const decidedHere =
      to !== 'local' && this.#record?.by === this.#host.processId;
    const change: FleetChange = {
      tool: this.tool,
      from,
      to,
      origin: decidedHere ? 'process' : 'fleet',
    };
    for (const listener of [...(this.#listeners ?? [])]) {
      try {
        listener(change);
      } catch (error: unknown) {
        this.#host.onListenerError(error);
      }
    }
  }

  /** Calls `listener` on every change of the view. Returns an unsubscribe function. */
  onChange(listener: (change: FleetChange) => void): () => void {
    const entry = (change: FleetChange): void => {
      listener(change);
    };
    (this.#listeners ??= new Set()).add(entry);
    return () => {
      this.#listeners?.delete(entry);
    };
  }
}

const LOCAL: FleetAdmission = Object.freeze({ kind: 'local' });
const RUN: FleetAdmission = Object.freeze({ kind: 'run' });

function refuse(
  state: 'open' | 'half_open',
  retryAfterMs: number,
): FleetAdmission {
  return { kind: 'refuse', state, retryAfterMs: Math.ceil(retryAfterMs) };
}
