import { type CallAbort, type ToolRunContext } from '@candor/tools';

/**
 * What a tool's `run` receives. A class, so every call's context has one shape and its `signal`
 * getter lives on the prototype: the AbortSignal is only made if the tool reads it.
 */
export class RunContext implements ToolRunContext {
  readonly #abort: CallAbort;
  readonly callId: string;
  readonly toolName: string;

  constructor(abort: CallAbort, callId: string, toolName: string) {
    this.#abort = abort;
    this.callId = callId;
    this.toolName = toolName;
  }

  /** Aborted on timeout or when the caller cancels. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }
}
