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
  specs(options?: ToolExecutorSpecsOptions): readonly ToolExecutorSpec[];
  call(
    name: string,
    args?: unknown,
    options?: ToolExecutorCallOptions,
  ): Promise<ToolResponse>;
}
