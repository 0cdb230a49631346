import { type ToolResponse } from '@candor/tools';
import { type Admission, type RecordOptions } from './admission.ts';
import { type CircuitPolicy, type PolicyTicket } from './circuit-policy.ts';
import { type CallSettler } from './fired-outcome.ts';

/**
 * A call a {@link CircuitPolicy} admitted (a closed-circuit call or one of the half-open trials):
 * its outcome, and whether it was slow, go to the policy, which opens or closes the circuit.
 */
export class PolicyOutcome implements Admission {
  readonly admitted = true;
  #recorded = false;
  readonly #breaker: CallSettler;
  readonly #policy: CircuitPolicy;
  readonly #ticket: PolicyTicket;
  readonly #startedAt: number;

  constructor(
    breaker: CallSettler,
    policy: CircuitPolicy,
    ticket: PolicyTicket,
  ) {
    this.#breaker = breaker;
    this.#policy = policy;
    this.#ticket = ticket;
    this.#startedAt = policy.startedAt();
  }

  record(response: ToolResponse, options?: RecordOptions): void {
    if (this.#recorded) return;
    this.#recorded = true;
    const policy = this.#policy;
    const slow = policy.isSlow(this.#startedAt);
    const failure = this.#breaker.settle(response, options?.timedOut === true);
    policy.ended(this.#ticket, failure, slow);
  }
}
