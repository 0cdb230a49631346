import { type CallAbort, ToolResponse } from '@candor/tools';
import { deadlines } from './deadlines.ts';

/** What {@link runWithDeadline} needs to run one call once. */
export interface DeadlineRun {
  /** The tool's name, for the responses made here. */
  readonly toolName: string;
  /** The one effective time limit of this run, in ms. */
  readonly timeoutMs: number;
  /** This call's cancellation. The deadline aborts it. */
  readonly abort: CallAbort;
  /**
   * Called once when `run` returned a promise, before the deadline starts: the moment to start
   * following the caller's signal. A run that answers synchronously is over before any caller
   * could cancel it, so it never pays for the listener. Should it throw, the call goes on
   * without it (the deadline still applies).
   */
  readonly pending?: () => void;
  /** Runs the tool. It may return a value or a promise, or throw. */
  readonly run: (abort: CallAbort) => unknown;
  /**
   * Turns the settled value into the response, once: the shape check. It runs inside the
   * boundary, so a throw here becomes an INTERNAL_ERROR response too.
   */
  readonly accept: (value: unknown) => ToolResponse;
  /** The response when the deadline passes first. */
  readonly timedOut: () => ToolResponse;
  /** The response when the caller cancels first; `started` is always true here. */
  readonly cancelled: () => ToolResponse;
}

/** The DOMException the deadline aborts a call with; recognised by identity, never by reading it. */
function deadlineReason(toolName: string, timeoutMs: number): DOMException {
  return new DOMException(
    `Tool "${toolName}" did not finish within ${timeoutMs} ms`,
    'TimeoutError',
  );
}

/** Whether an abort reason says "timed out". Hostile reasons whose reads throw are not timeouts. */
function isTimeoutReason(reason: unknown): boolean {
  // Inside the try too: `instanceof` asks a Proxy for its prototype, which may throw.
  try {
    if (reason instanceof DOMException) return reason.name === 'TimeoutError';
    return (
      typeof reason === 'object' &&
      reason !== null &&
      (reason as { name?: unknown }).name === 'TimeoutError'
    );
  } catch {
    return false;
  }
}

function thrownResponse(thrown: unknown): ToolResponse {
  try {
    // classifyError is the one classification of what was thrown, standalone or in a registry.
    return ToolResponse.fromThrown(thrown);
  } catch {
    return ToolResponse.error(
      'INTERNAL_ERROR',
      'The tool threw a value that could not be read.',
    );
  }
}

function accepted(options: DeadlineRun, value: unknown): ToolResponse {
  try {
    return options.accept(value);
  } catch (error: unknown) {
    return thrownResponse(error);
  }
}

function isPromise(value: unknown): value is PromiseLike<unknown> {
  if (value instanceof Promise) return true;
  if (typeof value !== 'object' && typeof value !== 'function') return false;
  if (value === null) return false;
  // A thenable is adopted like `await` would; reading `then` may throw, which the caller catches.
  return typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Runs one call once, with one deadline, one cancellation path and one classification of what was
 * thrown. It never rejects and never throws. A tool that answers synchronously costs no timer; an
 * async one is bounded by `timeoutMs` through one shared deadline queue, not a timer per call.
 * When the deadline passes, `abort` is aborted with a `TimeoutError` DOMException, so a tool that
 * passed its signal on can stop its own work; a late answer is ignored.
 *
 * The registry and a standalone breaker both run calls through this function, so a thrown
 * `ECONNRESET` is a NETWORK_ERROR either way.
 *
 * @example
 * ```ts
 * const response = await runWithDeadline({
 *   toolName: 'web_fetch',
 *   timeoutMs: 5_000,
 *   abort: new CallAbort(),
 *   run: ({ signal }) => fetchTool(args, signal),
 *   accept: (value) => ToolResponse.parse(value),
 *   timedOut: () => ToolResponse.error('TIMEOUT', 'web_fetch took longer than 5 s'),
 *   cancelled: () => ToolResponse.error('EXECUTION_ERROR', 'cancelled', { cancelled: true }),
 * });
 * ```
 */
export function runWithDeadline(
  options: DeadlineRun,
): ToolResponse | Promise<ToolResponse> {
  const { abort } = options;
  if (abort.aborted) {
    return isTimeoutReason(abort.reason)
      ? options.timedOut()
      : options.cancelled();
  }
  let value: unknown;
  try {
    value = options.run(abort);
    if (!isPromise(value)) return accepted(options, value);
  } catch (error: unknown) {
    return thrownResponse(error);
  }
  return settle(options, value);
}

function settle(
  options: DeadlineRun,
  pending: PromiseLike<unknown>,
): Promise<ToolResponse> {
  const { abort, timeoutMs, toolName } = options;
  try {
    options.pending?.();
  } catch {
    // Following the caller is a courtesy the deadline backs up; the call still ends.
  }
  return new Promise<ToolResponse>((resolve) => {
    let ours: DOMException | undefined;
    // The abort listener can fire before the deadline and the listener handle exist (a caller
    // that aborts while the tool is still starting), so finish reads them from here.
    const call: {
      settled: boolean;
      deadline?: { cancel(): void };
      stopListening?: () => void;
    } = { settled: false };
    const finish = (response: () => ToolResponse): void => {
      if (call.settled) return;
      call.settled = true;
      call.deadline?.cancel();
      call.stopListening?.();
      resolve(response());
    };
    // Called as methods, so a class may implement DeadlineRun (one object, no closures per call).
    call.stopListening = abort.onAbort((reason) => {
      finish(
        reason === ours || isTimeoutReason(reason)
          ? () => options.timedOut()
          : () => options.cancelled(),
      );
    });
    if (call.settled) {
      call.stopListening();
      return;
    }
    call.deadline = deadlines.add(timeoutMs, () => {
      ours = deadlineReason(toolName, timeoutMs);
      abort.abort(ours);
      // A CallAbort already aborted by someone else does not call listeners again.
      finish(() => options.timedOut());
    });
    try {
      pending.then(
        (value) => {
          finish(() => accepted(options, value));
        },
        (error: unknown) => {
          // A tool that rethrows our own abort reason is reporting the timeout or cancellation.
          if (abort.aborted) return;
          finish(() => thrownResponse(error));
        },
      );
    } catch (error: unknown) {
      // A thenable whose `then` throws.
      finish(() => thrownResponse(error));
    }
  });
}
