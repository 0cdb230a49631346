import {
  type SharedAdmission,
  type SharedChange,
  type SharedCircuit,
  type SharedCircuitRules,
  type SharedView,
} from '@candor/breaker';
import { type FleetRecord } from './fleet-record.ts';

/** The rules one tool's shared circuit follows: the local breaker's, applied to the fleet. */
export type FleetRules = SharedCircuitRules;

/** What the fleet says about one call (see `SharedAdmission` in `@candor/breaker`). */
export type FleetAdmission = SharedAdmission;

/** Where a circuit's admission comes from: a fleet state, or `local` while the store is unusable. */
export type FleetView = SharedView;

/** One change of a tool's fleet view, with its origin: this process, or another one. */
export type FleetChange = SharedChange;

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
export class FleetCircuit implements SharedCircuit {
  readonly tool: string;
  readonly rules: FleetRules;
  readonly #host: FleetCircuitHost;
  #record: FleetRecord | undefined;
  #published: FleetView = 'local';
  #acquiring: Promise<void> | undefined;
  /** The trial lease this process holds, once a call runs it. */
  #heldTrial: string | undefined;
  /** A trial lease granted to this process that no call has taken yet. */
  #unclaimed: string | undefined;
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

  /** When the fleet's circuit opened (the server's clock), while the view is open. */
  get openedAt(): number | undefined {
    return this.view === 'open' ? this.#record?.openedAt : undefined;
  }

  /** The shared record last seen, if any. */
  get shared(): FleetRecord | undefined {
    return this.#record;
  }

  /**
   * Admits or refuses one call, synchronously, from the local view. When the fleet's trial is
   * due, the call is refused (`half_open`, `retryAfterMs: 0`) and the lease is asked for in the
   * background; if it is granted, this process's next call is the fleet's trial.
   */
  admit(): FleetAdmission {
    const record = this.#record;
    if (!this.#host.usable() || record === undefined) return LOCAL;
    switch (record.state) {
      case 'closed':
        return RUN;
      case 'open': {
        const due = (record.openedAt ?? 0) + this.rules.resetTimeoutMs;
        const wait = due - this.#host.serverNow();
        if (wait > 0) return refuse('open', wait);
        this.#askForTrial();
        return refuse('half_open', 0);
      }
      case 'half_open': {
        const leaseEnd = (record.leaseAt ?? 0) + (record.leaseMs ?? 0);
        const leased = leaseEnd > this.#host.serverNow();
        const granted = this.#unclaimed;
        if (granted !== undefined && leased) {
          this.#unclaimed = undefined;
          this.#heldTrial = granted;
          return { kind: 'trial', token: granted };
        }
        if (this.#heldTrial !== undefined || leased) {
          return refuse('half_open', 0);
        }
        // The trial's holder never reported and its lease has run out: take it over.
        this.#unclaimed = undefined;
        this.#askForTrial();
        return refuse('half_open', 0);
      }
    }
  }

  #askForTrial(): void {
    if (this.#acquiring !== undefined) return;
    trialCounter += 1;
    const token = `${this.#host.processId}#${trialCounter}`;
    // acquireTrial never rejects: a failure degrades the store instead.
    this.#acquiring = this.#host.acquireTrial(this, token).then(() => {
      this.#acquiring = undefined;
    });
  }

  /** Resolves once the trial lease request in flight, if any, has its answer. */
  async lease(): Promise<void> {
    await this.#acquiring;
  }

  /**
   * Called by the store when this process was granted the trial lease, before the half-open
   * record is applied: the next call admitted here runs the trial.
   */
  granted(token: string): void {
    this.#unclaimed = token;
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
    // A granted lease is only good while the fleet is half-open.
    if (this.#record?.state !== 'half_open') this.#unclaimed = undefined;
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
