import { type JsonSchema } from './provider-specs.ts';
import { type ToolResponse } from './tool-response.ts';

/** One tool as an executor lists it: a name, what it does, and its input as JSON Schema. */
export interface ToolExecutorSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
}

/** What {@link ToolExecutor.specs} is asked. */
export interface ToolExecutorSpecsOptions {
  readonly format: 'json-schema';
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
  /** The tools' specs in the provider format asked for. */
  specs(options: ToolExecutorSpecsOptions): readonly ToolExecutorSpec[];
  /** Runs one tool call; never rejects: every failure is an ERROR response. */
  call(
    name: string,
    args?: unknown,
    options?: ToolExecutorCallOptions,
  ): Promise<ToolResponse>;
}
