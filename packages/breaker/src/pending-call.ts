import { isToolErrorCode } from '@candor/errors';
import { type ToolResponse } from '@candor/tools';
import { breakerResponses } from './breaker-responses.ts';

/** What one {@link PendingCall} needs. */
export interface PendingCallOptions {
  readonly tool: string;
  readonly run: (signal: AbortSignal) => Promise<ToolResponse>;
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
 * One call through a breaker, with its own AbortController linked to the caller's signal. The
 * controller is per call because opossum's own is breaker-wide: one timeout would abort every
 * call in flight (opossum #780, #861).
 */
export class PendingCall {
  readonly #tool: string;
  readonly #run: (signal: AbortSignal) => Promise<ToolResponse>;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #controller = new AbortController();
  readonly #onCallerAbort = (): void => {
    this.#controller.abort(this.#callerSignal?.reason);
  };

  constructor(options: PendingCallOptions) {
    this.#tool = options.tool;
    this.#run = options.run;
    this.#callerSignal = options.signal;
    this.#callerSignal?.addEventListener('abort', this.#onCallerAbort, {
      once: true,
    });
  }

  /** The signal `run` receives. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Runs the tool once. Never rejects: a throw becomes a response here, at the one boundary. */
  async start(): Promise<ToolResponse> {
    try {
      const response: unknown = await this.#run(this.#controller.signal);
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

  /** Aborts this call's signal, and only this call's, with a `TimeoutError`. */
  abortForTimeout(backstopMs: number): void {
    if (this.#controller.signal.aborted) return;
    this.#controller.abort(
      new DOMException(
        `Tool "${this.#tool}" did not finish within ${backstopMs} ms`,
        'TimeoutError',
      ),
    );
  }

  /** Unlinks from the caller's signal, so a long-lived caller signal does not keep calls alive. */
  dispose(): void {
    this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
  }
}
