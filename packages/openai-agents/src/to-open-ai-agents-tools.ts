import { type ToolRegistry } from '@candor/registry';
import { toolResultForModel } from '@candor/tools';
import { type FunctionTool, tool } from '@openai/agents';

// The SDK's non-strict JSON Schema parameters type, which it does not export by name.
type NonStrictParameters = Extract<
  Parameters<typeof tool>[0]['parameters'],
  { additionalProperties: true }
>;

/** Decides per call whether the Agents SDK stops the run for a human approval first. */
export type NeedsApproval =
  | boolean
  | ((toolName: string, input: unknown) => boolean | PromiseLike<boolean>);

/** Options of {@link toOpenAIAgentsTools}. */
export interface OpenAIAgentsToolsOptions {
  /**
   * Hands the call to the SDK's approval (`needsApproval`): the run stops with an interruption
   * until the program approves or rejects it. The registry's own `approve` gate still runs on
   * every approved call.
   */
  readonly needsApproval?: NeedsApproval;
}

function approvalFor(
  name: string,
  needsApproval: NeedsApproval | undefined,
): {
  needsApproval?:
    boolean | ((context: unknown, input: unknown) => Promise<boolean>);
} {
  if (needsApproval === undefined) return {};
  if (typeof needsApproval === 'boolean') return { needsApproval };
  return {
    needsApproval: async (_context: unknown, input: unknown) =>
      await needsApproval(name, input),
  };
}

/**
 * The registry's tools as OpenAI Agents SDK function tools. Every `execute` goes through
 * `registry.call()` (validation, approval gate, breaker, timeout) with the model's call id and the
 * run's abort signal, and returns `toolResultForModel`'s text: an error starts with its code, a
 * partial result says it is incomplete, a denial says the call was NOT executed. It never throws,
 * so no outcome reaches the runner as a crash. Parameters are the registry's JSON Schemas
 * (`strict: false`); the registry validates the arguments. It is an array: pick tools with
 * `.filter((tool) => tool.name === …)`.
 *
 * @example
 * ```ts
 * const agent = new Agent({
 *   name: 'calculator',
 *   model: 'gpt-5-mini',
 *   tools: toOpenAIAgentsTools(registry),
 * });
 * const result = await run(agent, 'What is 2 + 3 * 4?');
 * ```
 */
export function toOpenAIAgentsTools(
  registry: ToolRegistry,
  options: OpenAIAgentsToolsOptions = {},
): FunctionTool<unknown, NonStrictParameters>[] {
  return registry.specs({ format: 'json-schema' }).map((spec) =>
    tool({
      name: spec.name,
      description: spec.description,
      // A copy: the registry's schema is frozen; the SDK only forwards it (no validation).
      parameters: structuredClone(spec.inputSchema) as NonStrictParameters,
      strict: false,
      ...approvalFor(spec.name, options.needsApproval),
      execute: async (input, _context, details) => {
        const callId = details?.toolCall?.callId;
        const signal = details?.signal;
        const response = await registry.call(spec.name, input, {
          ...(callId === undefined ? {} : { callId }),
          ...(signal === undefined ? {} : { signal }),
        });
        return toolResultForModel(response, spec.name).content;
      },
    }),
  );
}
