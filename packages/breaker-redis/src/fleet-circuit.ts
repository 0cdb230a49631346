import {
  type SharedAdmission,
  type SharedChange,
  type SharedCircuit,
  type SharedCircuitRules,
  type SharedView,
} from '@candor/breaker';
import { outcomeDigit } from './fleet-policy-lua.ts';
import { type FleetRecord } from './fleet-record.ts';
import { FleetSlots } from './fleet-slots.ts';

/** The rules one tool's shared circuit follows: the local breaker's, applied to the fleet. */
export type FleetRules = SharedCircuitRules;

/** What the fleet says about one call (see `SharedAdmission` in `@candor/breaker`). */
export type FleetAdmission = SharedAdmission;

/** Where a circuit's admission comes from: a fleet state, or `local` while the store is unusable. */
export type FleetView = SharedView;

/** One change of a tool's fleet view, with its origin: this process, or another one. */
export type FleetChange = SharedChange;

/** How a trial ended: failed by the breaker's rules, and slower than `slowCallMs`. */
export interface TrialResult {
  readonly failed: boolean;
  readonly slow: boolean;
}

/** What a circuit needs from its store. */
export interface FleetCircuitHost {
  readonly processId: string;
  /** How long a claim on the trial holds the fleet back once the trial is due. */
  readonly claimMs: number;
  /** Whether the store is connected, synchronised and answering. */
  usable(): boolean;
  /** The server's clock, estimated locally. */
  serverNow(): number;
  /** Asks for the outcomes to be written soon, in a batch. */
  scheduleFlush(circuit: FleetCircuit): void;
  /** Claims the trial for this process; resolves with the claim's end (server ms) if granted. */
  claimTrial(circuit: FleetCircuit, token: string): Promise<number | undefined>;
  /** Turns a claim (or a free, due trial) into the running trial's lease; resolves with the grant. */
  startTrial(circuit: FleetCircuit, token: string): Promise<boolean>;
  settleTrial(circuit: FleetCircuit, token: string, result: TrialResult): void;
  onListenerError(error: unknown): void;
}

let trialCounter = 0;

/**
 * One tool's circuit as the fleet sees it, read from a local view: admitting a call costs no
 * round trip. The half-open trial runs on the call that finds it due: a process claims it in the
 * background while the circuit is still open (its first refused call does), so when it comes due
 * that process's next call runs it at once, and every other process knows to refuse.
 */
export class FleetCircuit implements SharedCircuit {
  readonly tool: string;
  readonly rules: FleetRules;
  readonly #host: FleetCircuitHost;
  #record: FleetRecord | undefined;
  /** Whether the next record applied answers a start that was denied (see startDenied). */
  #denied = false;
  /** Whether #record is this process's own half-open view of the trial it just started. */
  #provisional = false;
  #published: FleetView = 'local';
  #claiming: Promise<void> | undefined;
  /** The token of the claim request in flight. */
  #claimToken: string | undefined;
  #starting: Promise<boolean> | undefined;
  /** The slots of several half-open trials, when the breaker permits more than one. */
  readonly #slots: FleetSlots | undefined;
  /** The trial this process runs now. */
  #heldTrial: string | undefined;
  /** A claim on the next trial granted to this process, and when it runs out (server ms). */
  #claim: { readonly token: string; readonly until: number } | undefined;
  #listeners: Set<(change: FleetChange) => void> | undefined;
  /** Outcomes not yet written. */
  pendingCalls = 0;
  pendingFailures = 0;
  pendingSlow = 0;
  /** A count window's outcomes in order (see `outcomeDigit`); empty for a time window. */
  pendingOutcomes = '';

  constructor(tool: string, rules: FleetRules, host: FleetCircuitHost) {
    this.tool = tool;
    this.rules = rules;
    this.#host = host;
    const permitted = rules.permittedCallsInHalfOpen ?? 1;
    if (permitted > 1) this.#slots = new FleetSlots(this, host, permitted);
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
   * due and this process holds the claim (or nobody does), this call is the trial.
   */
  admit(): FleetAdmission {
    const record = this.#record;
    if (!this.#host.usable() || record === undefined) return LOCAL;
    if (record.state === 'closed') return RUN;
    // Held open by an operator: refused like any open circuit, and no trial is ever claimed.
    if (record.forced === 'open') {
      return refuse('open', this.rules.resetTimeoutMs);
    }
    const now = this.#host.serverNow();
    // The claim's end with a margin each side for the estimate of the server's clock: the
    // claimant stops trusting it a little early, everyone else a little late, so no trial
    // starts near its end only to find it still held on the server.
    const margin = Math.max(2, this.#host.claimMs / 5);
    if (this.#slots !== undefined)
      return this.#slots.admit(record, now, margin);
    const claimed =
      record.trialUntil !== undefined && record.trialUntil + margin > now;
    if (record.state === 'open') {
      const wait = (record.openedAt ?? 0) + this.rules.resetTimeoutMs - now;
      if (wait > 0) {
        // Claimed ahead, so that the call finding the trial due needs no round trip.
        if (!claimed && this.#claim === undefined) this.#askForClaim();
        return refuse('open', wait);
      }
    } else if ((record.leaseAt ?? 0) + (record.leaseMs ?? 0) > now) {
      return refuse('half_open', 0);
    }
    if (this.#heldTrial !== undefined) return refuse('half_open', 0);
    const claim = this.#claim;
    if (claim !== undefined && now < claim.until - margin) {
      return this.#runTrial(record, claim.token, now);
    }
    if (claimed) return refuse('half_open', 0);
    // This process's own claim, still on its way: the trial takes its token, so that the claim
    // (granted first, on the same connection) is this trial's, not a rival's.
    if (this.#claimToken !== undefined) {
      return this.#runTrial(record, this.#claimToken, now);
    }
    // Nobody holds a claim (its holder went quiet, or no call was refused while open): this call
    // takes the trial in one step. Processes that find it due within the same round trip may
    // each run one call; only the lease's winner decides (see docs/fleet.md).
    return this.#runTrial(record, nextToken(this.#host.processId), now);
  }

  #runTrial(record: FleetRecord, token: string, now: number): FleetAdmission {
    this.#claim = undefined;
    this.#heldTrial = token;
    this.provisional({
      state: 'half_open',
      epoch: record.epoch,
      openedAt: record.openedAt ?? now,
      leaseAt: now,
      leaseMs: this.rules.leaseMs,
      by: this.#host.processId,
    });
    // startTrial never rejects: a failure degrades the store instead.
    this.#starting = this.#host.startTrial(this, token);
    return { kind: 'trial', token };
  }

  /** Half-open here at once, for a trial started here; the store's record (a later epoch) replaces it. */
  provisional(record: FleetRecord): void {
    this.#record = record;
    this.#provisional = true;
    this.publish();
  }

  #askForClaim(): void {
    if (this.#claiming !== undefined) return;
    const token = nextToken(this.#host.processId);
    this.#claimToken = token;
    // claimTrial never rejects: a failure degrades the store instead.
    this.#claiming = this.#host.claimTrial(this, token).then((until) => {
      this.#claiming = undefined;
      this.#claimToken = undefined;
      // Unless a trial already runs on it (or on another token).
      if (until !== undefined && this.#heldTrial === undefined) {
        this.#claim = { token, until };
      }
    });
  }

  /**
   * Called by the store when the trial this process started was not granted (another process
   * holds the claim or the lease): the store's answer replaces the half-open view taken at once.
   */
  startDenied(): void {
    this.#provisional = false;
    // The answer that comes with the denial is the store's word, even an open record of the
    // round whose half-open view this process took at once.
    this.#denied = true;
  }

  /** Resolves once the trial requests in flight, if any, have their answers. */
  async lease(): Promise<void> {
    await Promise.all([this.#claiming, this.#starting, this.#slots?.settled()]);
  }

  /**
   * Records the outcome of a call the fleet admitted. `failed` is whether the local breaker's
   * rules count it as a failure. Outcomes of `run` calls are written in batches; a trial's
   * result is written at once (after its lease), and decides for the whole fleet.
   */
  record(admission: FleetAdmission, failed: boolean, slow = false): void {
    switch (admission.kind) {
      case 'run':
        this.pendingCalls += 1;
        if (failed) this.pendingFailures += 1;
        if (slow) this.pendingSlow += 1;
        if (this.rules.windowCalls !== undefined) {
          this.pendingOutcomes += outcomeDigit(failed, slow);
        }
        this.#host.scheduleFlush(this);
        return;
      case 'trial': {
        if (this.#slots !== undefined) {
          this.#slots.record(admission.token, failed, slow);
          return;
        }
        if (this.#heldTrial === admission.token) this.#heldTrial = undefined;
        // One trial: a slow one (slow is only said when slow calls count) reopens as a failure.
        const settle = (): void => {
          this.#host.settleTrial(this, admission.token, {
            failed: failed || slow,
            slow: false,
          });
        };
        // The lease is taken before the result is written, or the result would find no lease.
        if (this.#starting === undefined) settle();
        else void this.#starting.then(settle);
        return;
      }
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
      record.epoch > held.epoch ||
      // The provisional view of a trial started here is newer than anything of its own epoch.
      (record.epoch === held.epoch && !this.#provisional)
    ) {
      if (
        options.force !== true &&
        !this.#denied &&
        this.#slots?.stale(held, record) === true
      ) {
        this.publish();
        return;
      }
      this.#record = record;
      this.#provisional = false;
    }
    this.#denied = false;
    // A claim is only good until the circuit closes.
    if (this.#record?.state !== 'open' && this.#record?.state !== 'half_open') {
      this.#claim = undefined;
      this.#slots?.cleared();
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

function nextToken(processId: string): string {
  trialCounter += 1;
  return `${processId}#${String(trialCounter)}`;
}

function refuse(
  state: 'open' | 'half_open',
  retryAfterMs: number,
): FleetAdmission {
  return { kind: 'refuse', state, retryAfterMs: Math.ceil(retryAfterMs) };
}
