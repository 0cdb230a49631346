import { type ToolExecutor, type ToolExecutorSpec } from './tool-executor.ts';
import { type ToolResponse } from './tool-response.ts';

/** Decides per call whether a framework asks for approval before the tool runs. */
export type NeedsApproval =
  | boolean
  | ((toolName: string, input: unknown) => boolean | PromiseLike<boolean>);

/** What a framework adapter may be asked, whichever framework it serves. */
export interface AdapterToolsOptions {
  /** Only these tools, by name. Default: every tool. */
  readonly only?: readonly string[];
  /**
   * Hands the call to the framework's own approval before it reaches the registry. The
   * registry's `approve` gate still runs on every call.
   */
  readonly needsApproval?: NeedsApproval;
}

/** One tool as a framework adapter binds it. */
export interface AdapterTool {
  readonly spec: ToolExecutorSpec;
  /** This tool's approval question for the framework; absent when none was asked for. */
  readonly needsApproval?: boolean | ((input: unknown) => Promise<boolean>);
  /** Runs the call through the executor; never rejects. A missing id or signal is left out. */
  readonly call: (
    input: unknown,
    context: {
      readonly callId?: string | undefined;
      readonly signal?: AbortSignal | undefined;
    },
  ) => Promise<ToolResponse>;
}

function approvalFor(
  name: string,
  needsApproval: NeedsApproval | undefined,
): Pick<AdapterTool, 'needsApproval'> {
  if (needsApproval === undefined) return {};
  if (typeof needsApproval === 'boolean') return { needsApproval };
  return {
    needsApproval: async (input: unknown) => await needsApproval(name, input),
  };
}

/**
 * The executor's tools as every framework adapter needs them: the provider-neutral spec, the
 * approval question, and a `call` through `executor.call()` (so validation, the approval gate,
 * the breaker and the timeout all apply). `caller` names the adapter in the error for a name in
 * `only` that no tool has.
 *
 * @example
 * ```ts
 * for (const { spec, call } of adapterTools(registry, { caller: 'toMyFrameworkTools' })) {
 *   frameworkTool(spec.name, (input, id) => call(input, { callId: id }));
 * }
 * ```
 */
export function adapterTools(
  executor: ToolExecutor,
  options: AdapterToolsOptions & { readonly caller: string },
): AdapterTool[] {
  const specs = executor.specs({ format: 'json-schema' });
  const only = options.only === undefined ? undefined : new Set(options.only);
  const unknown = [...(only ?? [])].filter(
    (name) => !specs.some((spec) => spec.name === name),
  );
  if (unknown.length > 0) {
    throw new TypeError(
      `${options.caller}: no registered tool named ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
    );
  }
  return specs
    .filter((spec) => only === undefined || only.has(spec.name))
    .map((spec) => ({
      spec,
      ...approvalFor(spec.name, options.needsApproval),
      call: (input, { callId, signal }) =>
        executor.call(spec.name, input, {
          ...(callId === undefined ? {} : { callId }),
          ...(signal === undefined ? {} : { signal }),
        }),
    }));
}
