import { type ToolResponse, ToolResponse as Responses } from '@candor/tools';

/** What {@link runWithTimeout} needs to bound one run. */
export interface TimedRun {
  readonly toolName: string;
  readonly timeoutMs: number;
  /** The breaker's per-call signal, itself linked to the caller's. */
  readonly signal: AbortSignal;
  readonly run: (signal: AbortSignal) => Promise<ToolResponse>;
}

function cancelled(toolName: string): ToolResponse {
  return Responses.error(
    'EXECUTION_ERROR',
    `The call to "${toolName}" was cancelled by the caller.`,
    {
      cancelled: true,
      retryable: false,
    },
  );
}

function isTimeout(reason: unknown): boolean {
  return (
    typeof reason === 'object' &&
    reason !== null &&
    (reason as { name?: unknown }).name === 'TimeoutError'
  );
}

/**
 * Runs a tool with its own time limit and the caller's signal. It settles as soon as the tool
 * answers, the limit passes (TIMEOUT) or the caller aborts (cancelled), and ignores a late answer.
 * The tool sees an AbortSignal it should pass on, so its own work can stop too.
 */
export function runWithTimeout(options: TimedRun): Promise<ToolResponse> {
  const { toolName, timeoutMs, signal, run } = options;
  if (signal.aborted) {
    return Promise.resolve(
      isTimeout(signal.reason)
        ? timedOut(toolName, timeoutMs)
        : cancelled(toolName),
    );
  }
  const controller = new AbortController();
  return new Promise<ToolResponse>((resolve) => {
    let settled = false;
    const finish = (response: ToolResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(response);
    };
    const onAbort = (): void => {
      controller.abort(signal.reason);
      finish(
        isTimeout(signal.reason)
          ? timedOut(toolName, timeoutMs)
          : cancelled(toolName),
      );
    };
    const timer = setTimeout(() => {
      controller.abort(
        new DOMException(`Timed out after ${timeoutMs} ms`, 'TimeoutError'),
      );
      finish(timedOut(toolName, timeoutMs));
    }, timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    // The async wrapper turns a synchronous throw into a rejection, classified like any other.
    const pending = (async () => run(controller.signal))();
    pending.then(finish, (error: unknown) => {
      // A tool that rethrows our own abort reason is reporting the timeout or cancellation.
      if (controller.signal.aborted) return;
      finish(Responses.fromThrown(error));
    });
  });
}

function timedOut(toolName: string, timeoutMs: number): ToolResponse {
  return Responses.error(
    'TIMEOUT',
    `Tool "${toolName}" did not finish within ${timeoutMs} ms.`,
  );
}
