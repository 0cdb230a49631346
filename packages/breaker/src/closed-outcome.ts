import { type ToolResponse } from '@candor/tools';
import { type Admission, type RecordOptions } from './admission.ts';
import { type CountedFailure } from './counted-failure.ts';
import { type CallSettler, FiredOutcome } from './fired-outcome.ts';
import { ignore } from './outcome-link.ts';
import { noArguments, type ToolCircuit } from './tool-circuit.ts';

/**
 * A call admitted while the circuit was closed. opossum is told when the call ends, not when it
 * starts, as the fleet's shared window is: a call in flight is not yet in the window, and the
 * failure rate is over calls that ended. A success is counted through opossum's own `fire` and
 * `success` events (what `fire()` emits for it, without its promise, its closures and its two
 * clock reads: a fifth of a trivial tool's call through the registry). A failure goes through
 * `fire()` itself, so opossum's own rule decides whether the circuit opens. A half-open trial
 * still fires at admission, to take opossum's one trial slot, and is counted when it ends too.
 */
export class ClosedOutcome implements Admission {
  readonly admitted = true;
  #recorded = false;
  readonly #breaker: CallSettler;
  readonly #circuit: ToolCircuit;

  constructor(breaker: CallSettler, circuit: ToolCircuit) {
    this.#breaker = breaker;
    this.#circuit = circuit;
  }

  record(response: ToolResponse, options?: RecordOptions): void {
    if (this.#recorded) return;
    this.#recorded = true;
    const failure = this.#breaker.settle(response, options?.timedOut === true);
    const circuit = this.#circuit;
    if (failure === undefined) {
      // opossum's Status counts both; its own `success` listener closes a half-open circuit, as
      // it does for any success that arrives then. Neither reads the payload.
      circuit.emit('fire', noArguments);
      circuit.emit('success', undefined, 0);
    } else if (circuit.closed) {
      failThrough(circuit, new FiredOutcome(this.#breaker), failure);
    } else {
      // The circuit opened (or went half-open) while this call ran: fire() would refuse it, and
      // count a refusal for a call that ran. Counted as opossum counts the failure of a call it
      // let through before opening: a failure that changes nothing while open, and reopens a
      // half-open circuit.
      circuit.emit('fire', noArguments);
      circuit.emit('failure', failure, 0, noArguments);
      if (circuit.halfOpen) circuit.open();
    }
  }
}

/** A failure told to opossum through fire(), so its own rule decides whether to open. */
function failThrough(
  circuit: ToolCircuit,
  outcome: FiredOutcome,
  failure: CountedFailure,
): void {
  let fired: Promise<unknown>;
  try {
    fired = circuit.fire(outcome);
  } catch {
    // opossum never throws from fire() on a closed circuit; the call's response stands anyway.
    return;
  }
  // Rejected with the failure, which nothing else waits for.
  fired.then(ignore, ignore);
  outcome.link.onFailure?.(failure);
}
