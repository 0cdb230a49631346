import { type ToolResponse } from './tool-response.ts';
import { type ToolSpec } from './tool-spec.ts';

/**
 * One tool as an executor lists it: a `ToolSpec` whose output schema and idempotence may be
 * unknown (absent) for executors that cannot tell.
 */
export type ToolExecutorSpec = Omit<ToolSpec, 'idempotent'> & {
  readonly idempotent?: boolean;
};

/** What {@link ToolExecutor.specs} is asked. */
export interface ToolExecutorSpecsOptions {
  /** The one format there is; accepted for code written when specs had provider formats. */
  readonly format?: 'json-schema';
  /** Leave out tools whose circuit is open, so a model does not pick them. */
  readonly hideOpenCircuits?: boolean;
}

/** Per-call options of {@link ToolExecutor.call}. */
export interface ToolExecutorCallOptions {
  readonly callId?: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/**
 * What {@link ToolExecutor.check} answers: the response `call()` would give for a call refused
 * before approval, or the arguments as validated and the censored copy to show a person.
 */
export type ToolExecutorCheck =
  | { readonly ok: true; readonly input: unknown; readonly params: unknown }
  | { readonly ok: false; readonly response: ToolResponse };

/**
 * Anything that lists tools and runs them to a `ToolResponse`: a `ToolRegistry`, or a registry
 * filled from an MCP server. `call()` must never reject; every path ends in a response.
 *
 * @example
 * ```ts
 * const executor: ToolExecutor = new ToolRegistry().register(calculatorTool);
 * const response = await executor.call('calculator', { expression: '2 + 3' });
 * ```
 */
export interface ToolExecutor {
  /** The tools' provider-neutral specs: name, description and input JSON Schema. */
  specs(options?: ToolExecutorSpecsOptions): readonly ToolExecutorSpec[];
  /** Runs one tool call; never rejects: every failure is an ERROR response. */
  call(
    name: string,
    args?: unknown,
    options?: ToolExecutorCallOptions,
  ): Promise<ToolResponse>;
  /**
   * Optional: runs what `call()` runs before approval (lookup, decoding, validation) and nothing
   * after, and never rejects. A `ToolRegistry` has it; framework adapters use it to ask approval
   * only for calls the executor would take, showing `params`. Without it they ask for every call.
   */
  check?(
    name: string,
    args?: unknown,
    options?: { readonly callId?: string },
  ): Promise<ToolExecutorCheck>;
}
