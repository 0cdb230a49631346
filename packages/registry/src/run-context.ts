import {
  type CallAbort,
  type ToolProgress,
  type ToolRunContext,
} from '@candor/tools';

/** The run a context belongs to: its cancellation, and how it starts following the caller. */
export interface ContextRun {
  readonly abort: CallAbort;
  /** Starts following the caller's signal, if not already; never throws. */
  followCaller(): void;
}

/** Receives a running tool's progress reports; see {@link RunContext.reportProgress}. */
export type ProgressListener = (progress: ToolProgress) => void;

/**
 * What a tool's `run` receives. A class, so every call's context has one shape and its `signal`
 * getter lives on the prototype: the AbortSignal is only made if the tool reads it.
 */
export class RunContext implements ToolRunContext {
  readonly #run: ContextRun;
  readonly #onProgress: ProgressListener | undefined;
  readonly callId: string;
  readonly toolName: string;

  constructor(
    run: ContextRun,
    call: {
      readonly callId: string;
      readonly toolName: string;
      readonly onProgress: ProgressListener | undefined;
    },
  ) {
    this.#run = run;
    this.#onProgress = call.onProgress;
    this.callId = call.callId;
    this.toolName = call.toolName;
  }

  /**
   * Aborted on timeout or when the caller cancels. A tool that reads it follows the caller from
   * then on, even in its synchronous start (a caller may cancel from its progress listener).
   */
  get signal(): AbortSignal {
    this.#run.followCaller();
    return this.#run.abort.signal;
  }

  /**
   * Passes a report to the caller's `onProgress`. Bound, so a tool may destructure it; never
   * throws: a bad report or a listener that throws cannot fail the tool. `undefined` when the
   * caller passed no `onProgress`, so calls that ask for no progress allocate nothing for it.
   */
  get reportProgress(): ((progress: ToolProgress) => void) | undefined {
    const listener = this.#onProgress;
    if (listener === undefined) return undefined;
    return (progress) => {
      try {
        const report = readProgress(progress);
        if (report !== undefined) listener(report);
      } catch {
        // A progress report is a courtesy; losing one is not a failure of the call.
      }
    };
  }
}

/** A copy with only well-typed fields, or `undefined` when `progress` is not a finite number. */
function readProgress(value: unknown): ToolProgress | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { progress, total, message } = value as Record<string, unknown>;
  if (typeof progress !== 'number' || !Number.isFinite(progress))
    return undefined;
  return {
    progress,
    ...(typeof total === 'number' && Number.isFinite(total) ? { total } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}
