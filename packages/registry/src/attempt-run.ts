import {
  type Admission,
  type BreakerState,
  type DeadlineRun,
} from '@candor/breaker';
import { CallAbort, ToolResponse } from '@candor/tools';
import {
  type CallRequest,
  type Entry,
  type RunPlan,
  type StageResult,
} from './call-types.ts';
import { cancelledWhileRunning } from './cancelled-response.ts';
import { checkOutput } from './check-output.ts';
import { normaliseStructured } from './normalise-response.ts';
import { RunContext } from './run-context.ts';

/** One attempt's run under the deadline: one object per attempt, in place of five closures. */
export class AttemptRun implements DeadlineRun {
  readonly toolName: string;
  readonly timeoutMs: number;
  readonly abort = new CallAbort();
  readonly #entry: Entry;
  readonly #call: CallRequest;
  readonly #input: unknown;
  #unfollow: () => void = keepFollowing;
  /** Following the caller's signal, or past the point where it may start (the call ended). */
  #following = false;
  #timedOut = false;

  constructor(call: CallRequest, plan: RunPlan) {
    this.toolName = call.toolName;
    this.timeoutMs = plan.timeoutMs;
    this.#entry = plan.entry;
    this.#call = call;
    this.#input = plan.input;
  }

  // runWithDeadline passes `this.abort`; the context reads it through this run, which also
  // follows the caller's signal once the tool reads its own.
  run(): unknown {
    return this.#entry.tool.run(this.#input, new RunContext(this, this.#call));
  }

  /**
   * The tool returned a promise: the caller can cancel it from now on, so their signal is
   * followed (Node's `EventTarget` listeners cost a synchronous call microseconds for nothing).
   * `runCall` already answered a signal aborted before the start.
   */
  pending(): void {
    this.followCaller();
  }

  /**
   * Follows the caller's signal, once: when the tool returns a promise, or earlier when it reads
   * its own signal (so the signal it holds says "aborted" as soon as the caller's does, even
   * during its synchronous start). A signal that cannot be followed leaves the deadline alone.
   */
  followCaller(): void {
    // Once following, or once the call ended (a tool that reads its signal later, from a callback
    // it left behind, must not leave a listener on the caller's signal for good).
    if (this.#following) return;
    this.#following = true;
    try {
      this.#unfollow = this.abort.follow(this.#call.options.signal);
    } catch {
      // A hostile signal (a throwing getter or addEventListener): the deadline still applies.
    }
  }

  /** Normalisation, then output checking, of what the tool returned. */
  accept(value: unknown): ToolResponse {
    return checkOutput(this.#entry, normaliseStructured(this.toolName, value));
  }

  timedOut(): ToolResponse {
    this.#timedOut = true;
    return ToolResponse.error(
      'TIMEOUT',
      `Tool "${this.toolName}" did not finish within ${this.timeoutMs} ms.`,
    );
  }

  cancelled(): ToolResponse {
    return cancelledWhileRunning(this.toolName);
  }

  /** Stops following the caller's signal for good and records the outcome: once, every path. */
  end(
    response: ToolResponse,
    admission: Admission | undefined,
    breakerState: BreakerState | undefined,
  ): StageResult {
    this.#following = true;
    try {
      this.#unfollow();
    } finally {
      // An admitted call that is never recorded would hold a half-open breaker's one trial
      // slot forever.
      admission?.record(
        response,
        this.#timedOut ? timedOutRecord : settledRecord,
      );
    }
    return breakerState === undefined
      ? { stage: 'run', response }
      : { stage: 'run', response, breakerState };
  }
}

/** What a run that never followed the caller's signal stops following: nothing. */
function keepFollowing(): void {
  // Nothing was subscribed.
}

const timedOutRecord = Object.freeze({ timedOut: true });
const settledRecord = Object.freeze({ timedOut: false });
