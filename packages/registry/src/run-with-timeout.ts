import {
  type CallAbort,
  type ToolResponse,
  ToolResponse as Responses,
} from '@candor/tools';

/** What {@link runWithTimeout} needs to bound one run. */
export interface TimedRun {
  readonly toolName: string;
  readonly timeoutMs: number;
  /** This call's cancellation: the breaker's, itself following the caller's signal. */
  readonly abort: CallAbort;
  readonly run: (abort: CallAbort) => Promise<ToolResponse>;
}

function cancelled(toolName: string): ToolResponse {
  return Responses.error(
    'EXECUTION_ERROR',
    `The call to "${toolName}" was cancelled by the caller.`,
    { cancelled: true, retryable: false },
  );
}

function timedOut(toolName: string, timeoutMs: number): ToolResponse {
  return Responses.error(
    'TIMEOUT',
    `Tool "${toolName}" did not finish within ${timeoutMs} ms.`,
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
 * Runs a tool with its own time limit and the caller's cancellation. It settles as soon as the
 * tool answers, the limit passes (TIMEOUT) or the call is aborted (cancelled, or TIMEOUT when the
 * breaker's backstop fired), and ignores a late answer. The limit aborts the call, so a tool that
 * passed its signal on can stop its own work too.
 */
export function runWithTimeout(options: TimedRun): Promise<ToolResponse> {
  const { toolName, timeoutMs, abort, run } = options;
  const answerFor = (reason: unknown): ToolResponse =>
    isTimeout(reason) ? timedOut(toolName, timeoutMs) : cancelled(toolName);
  if (abort.aborted) return Promise.resolve(answerFor(abort.reason));
  return new Promise<ToolResponse>((resolve) => {
    let settled = false;
    const finish = (response: ToolResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stopListening();
      resolve(response);
    };
    const stopListening = abort.onAbort((reason) => {
      finish(answerFor(reason));
    });
    const timer = setTimeout(() => {
      abort.abort(
        new DOMException(`Timed out after ${timeoutMs} ms`, 'TimeoutError'),
      );
    }, timeoutMs);
    // The async wrapper turns a synchronous throw into a rejection, classified like any other.
    const pending = (async () => run(abort))();
    pending.then(finish, (error: unknown) => {
      // A tool that rethrows our own abort reason is reporting the timeout or cancellation.
      if (abort.aborted) return;
      finish(Responses.fromThrown(error));
    });
  });
}
