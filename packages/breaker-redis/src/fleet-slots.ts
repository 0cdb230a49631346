import {
  type FleetAdmission,
  type FleetCircuit,
  type FleetCircuitHost,
} from './fleet-circuit.ts';
import { type FleetRecord } from './fleet-record.ts';

let slotCounter = 0;

/**
 * The half-open trials of a tool whose breaker permits several (`permittedCallsInHalfOpen` above
 * 1), as one process sees them: the slots are in the tool's record (fleet-slot-scripts.ts). As
 * with one trial, a process claims a slot ahead while the circuit is open (a refused call claims
 * one while the view shows one free), so its call that finds the trial due runs at once, without
 * a round trip. One claim a process: a process claiming several could not use them until its
 * calls come (a process calling one at a time, blocked on its first trial, would hold the others
 * back for the whole claim), so the other slots go to other processes' claims or to the first
 * calls that find them free once due. A call that finds a slot free and unclaimed
 * (its holder went quiet, or nobody was refused while open) takes it in one step. Slots this
 * process took count as taken until their results are written, so its own calls never run more
 * trials than the fleet permits.
 */
export class FleetSlots {
  readonly #circuit: FleetCircuit;
  readonly #host: FleetCircuitHost;
  readonly #permitted: number;
  /** Claims granted to this process: token → when each runs out (server ms). */
  readonly #claims = new Map<string, number>();
  #claiming: Promise<void> | undefined;
  /** The claim request in flight, and whether a trial already runs on its token. */
  #claimToken: string | undefined;
  #claimUsed = false;
  /** The trials running here: each one's start request, and when its lease runs out. */
  readonly #running = new Map<
    string,
    { readonly start: Promise<boolean>; readonly until: number }
  >();
  readonly #tokenPrefix: string;

  constructor(
    circuit: FleetCircuit,
    host: FleetCircuitHost,
    permitted: number,
  ) {
    this.#circuit = circuit;
    this.#host = host;
    this.#permitted = permitted;
    // Short tokens: every slot's token lives in the record, which is capped (MAX_RECORD_BYTES).
    this.#tokenPrefix = host.processId.slice(
      host.processId.lastIndexOf(':') + 1,
    );
  }

  /** Admits or refuses one call of an open or half-open circuit, from the local view. */
  admit(record: FleetRecord, now: number, margin: number): FleetAdmission {
    const { rules } = this.#circuit;
    if (record.state === 'open') {
      const wait = (record.openedAt ?? 0) + rules.resetTimeoutMs - now;
      if (wait > 0) {
        if (this.#free(record, now, margin) > 0) this.#askForClaim();
        return { kind: 'refuse', state: 'open', retryAfterMs: Math.ceil(wait) };
      }
    }
    for (const [token, until] of this.#claims) {
      this.#claims.delete(token);
      if (now < until - margin) return this.#run(record, token, now);
    }
    // This process's own claim, still on its way: granted first, on the same connection.
    if (this.#claimToken !== undefined && !this.#claimUsed) {
      this.#claimUsed = true;
      return this.#run(record, this.#claimToken, now);
    }
    const free = this.#free(record, now, margin);
    // Without a claim, Redis takes the trial as due only by its own clock: a call that finds it
    // due by just under the margin of this estimate is refused, and claims a slot for the next.
    if (
      record.state === 'open' &&
      (record.openedAt ?? 0) + rules.resetTimeoutMs + margin > now
    ) {
      if (free > 0) this.#askForClaim();
      return { kind: 'refuse', state: 'open', retryAfterMs: Math.ceil(margin) };
    }
    if (free > 0) {
      slotCounter += 1;
      return this.#run(
        record,
        `${this.#tokenPrefix}#${String(slotCounter)}`,
        now,
      );
    }
    return { kind: 'refuse', state: 'half_open', retryAfterMs: 0 };
  }

  /**
   * Slots not taken in the view: N less the trials that ended and the live slots (another
   * process's judged a margin late) and this process's own running trials.
   */
  #free(record: FleetRecord, now: number, margin: number): number {
    const taken = new Set<string>();
    // A trial never recorded (its caller lost it) holds its slot no longer than its lease.
    for (const [token, { until }] of this.#running) {
      if (until + margin > now) taken.add(token);
    }
    for (const [token, until] of Object.entries(record.trials ?? {})) {
      if (until + margin > now) taken.add(token);
    }
    const ended = record.state === 'half_open' ? (record.trialsEnded ?? 0) : 0;
    return this.#permitted - ended - taken.size;
  }

  #run(record: FleetRecord, token: string, now: number): FleetAdmission {
    const half = record.state === 'half_open';
    const { leaseMs } = this.#circuit.rules;
    this.#circuit.provisional({
      state: 'half_open',
      epoch: record.epoch,
      openedAt: record.openedAt ?? now,
      leaseAt: now,
      leaseMs,
      by: this.#host.processId,
      permitted: this.#permitted,
      trials: { ...record.trials, [token]: now + leaseMs },
      trialsEnded: half ? (record.trialsEnded ?? 0) : 0,
      trialsFailed: half ? (record.trialsFailed ?? 0) : 0,
      trialsSlow: half ? (record.trialsSlow ?? 0) : 0,
    });
    // startTrial never rejects: a failure degrades the store instead.
    this.#running.set(token, {
      start: this.#host.startTrial(this.#circuit, token),
      until: now + leaseMs,
    });
    return { kind: 'trial', token };
  }

  #askForClaim(): void {
    if (this.#claiming !== undefined || this.#claims.size > 0) return;
    slotCounter += 1;
    const token = `${this.#tokenPrefix}#${String(slotCounter)}`;
    this.#claimToken = token;
    this.#claimUsed = false;
    // claimTrial never rejects: a failure degrades the store instead.
    this.#claiming = this.#host
      .claimTrial(this.#circuit, token)
      .then((until) => {
        const used = this.#claimUsed;
        this.#claiming = undefined;
        this.#claimToken = undefined;
        this.#claimUsed = false;
        if (until !== undefined && !used) this.#claims.set(token, until);
      });
  }

  /** Writes one trial's result, once its start request has its answer. */
  record(token: string, failed: boolean, slow: boolean): void {
    const start = this.#running.get(token)?.start;
    const settle = (): void => {
      this.#running.delete(token);
      this.#host.settleTrial(this.#circuit, token, { failed, slow });
    };
    if (start === undefined) settle();
    else void start.then(settle);
  }

  /**
   * Whether `record` is older than the half-open `held` although its epoch is later: an open
   * record of the same round (a claim answered or announced after this process started a trial,
   * say). With several trials a round's open records all come before its half-open ones: only a
   * result reopens (with a new `openedAt`), so taking it would flip the view back to open.
   */
  stale(
    held: FleetRecord | undefined,
    record: FleetRecord | undefined,
  ): boolean {
    return (
      held?.state === 'half_open' &&
      record?.state === 'open' &&
      record.forced === undefined &&
      record.openedAt === held.openedAt
    );
  }

  /** The circuit closed: claims are only good until then. */
  cleared(): void {
    this.#claims.clear();
  }

  /** Resolves once the requests in flight have their answers. */
  async settled(): Promise<void> {
    await Promise.all([
      this.#claiming,
      ...[...this.#running.values()].map((trial) => trial.start),
    ]);
  }
}
