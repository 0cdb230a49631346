import { type ToolResponse } from '@candor/tools';
import { type Admission } from './admission.ts';
import { type SharedAdmission } from './breaker-state-store.ts';
import { type FleetCircuit } from './fleet-circuit.ts';

/** The breaker's part in recording a call the shared circuit admitted. */
export interface SharedSettler {
  /** Counts the call in the breaker's metrics; says whether it counts as a failure. */
  settleShared(response: ToolResponse): boolean;
}

/** A call the shared circuit admitted: its outcome goes to the shared window (or trial). */
export class SharedOutcome implements Admission {
  readonly admitted = true;
  #recorded = false;
  readonly #breaker: SharedSettler;
  readonly #fleet: FleetCircuit;
  readonly #admission: SharedAdmission;
  readonly #startedAt: number;

  constructor(
    breaker: SharedSettler,
    fleet: FleetCircuit,
    admission: SharedAdmission,
  ) {
    this.#breaker = breaker;
    this.#fleet = fleet;
    this.#admission = admission;
    this.#startedAt = fleet.startedAt();
  }

  record(response: ToolResponse): void {
    if (this.#recorded) return;
    this.#recorded = true;
    const fleet = this.#fleet;
    const slow = fleet.isSlow(this.#startedAt);
    fleet.record(this.#admission, this.#breaker.settleShared(response), slow);
  }
}
