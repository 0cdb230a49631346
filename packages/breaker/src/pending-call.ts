import { isToolErrorCode } from '@candor/errors';
import { CallAbort, type ToolResponse } from '@candor/tools';
import { breakerResponses } from './breaker-responses.ts';

/** What one {@link PendingCall} needs. */
export interface PendingCallOptions {
  readonly tool: string;
  readonly run: (abort: CallAbort) => Promise<ToolResponse>;
  readonly signal?: AbortSignal | undefined;
}

const statuses: ReadonlySet<unknown> = new Set(['success', 'partial', 'error']);

function isToolResponseShape(value: unknown): value is ToolResponse {
  if (typeof value !== 'object' || value === null) return false;
  const { status, errorInfo } = value as {
    status?: unknown;
    errorInfo?: unknown;
  };
  if (!statuses.has(status)) return false;
  if (status !== 'error') return true;
  return (
    typeof errorInfo === 'object' &&
    errorInfo !== null &&
    isToolErrorCode((errorInfo as { code?: unknown }).code)
  );
}

/**
 * One call through a breaker, with its own cancellation linked to the caller's signal. It is per
 * call because opossum's own controller is breaker-wide: one timeout would abort every call in
 * flight (opossum #780, #861). It is a `CallAbort`, so no AbortSignal is made unless the tool
 * reads one: on Node 20 that is the costliest part of a trivial call.
 */
export class PendingCall {
  readonly #tool: string;
  readonly #run: (abort: CallAbort) => Promise<ToolResponse>;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #abort = new CallAbort();
  readonly #unfollow: () => void;

  constructor(options: PendingCallOptions) {
    this.#tool = options.tool;
    this.#run = options.run;
    this.#callerSignal = options.signal;
    this.#unfollow = this.#abort.follow(options.signal);
  }

  /** The cancellation `run` receives; `signal` on it is a real AbortSignal, made on first read. */
  get abort(): CallAbort {
    return this.#abort;
  }

  /** Runs the tool once. Never rejects: a throw becomes a response here, at the one boundary. */
  async start(): Promise<ToolResponse> {
    try {
      const response: unknown = await this.#run(this.#abort);
      return isToolResponseShape(response)
        ? response
        : breakerResponses.notAResponse(this.#tool);
    } catch (error: unknown) {
      // A tool that throws because its caller gave up was cancelled, not broken.
      if (this.#callerSignal?.aborted === true) {
        return breakerResponses.cancelled(this.#tool, true);
      }
      return breakerResponses.thrown(this.#tool, error);
    }
  }

  /** Aborts this call, and only this call, with a `TimeoutError`. */
  abortForTimeout(backstopMs: number): void {
    this.#abort.abort(
      new DOMException(
        `Tool "${this.#tool}" did not finish within ${backstopMs} ms`,
        'TimeoutError',
      ),
    );
  }

  /** Unlinks from the caller's signal, so a long-lived caller signal does not keep calls alive. */
  dispose(): void {
    this.#unfollow();
  }
}
