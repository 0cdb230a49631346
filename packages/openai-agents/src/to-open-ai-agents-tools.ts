import { type ToolRegistry } from '@candor/registry';
import {
  adapterTools,
  type AdapterToolsOptions,
  toolResultForModel,
} from '@candor/tools';
import { type FunctionTool, tool } from '@openai/agents';

// The SDK's non-strict JSON Schema parameters type, which it does not export by name.
type NonStrictParameters = Extract<
  Parameters<typeof tool>[0]['parameters'],
  { additionalProperties: true }
>;

/**
 * Options of {@link toOpenAIAgentsTools}: `only` some tools by name, and `needsApproval` to hand a
 * call to the SDK's approval, which stops the run with an interruption until the program approves
 * or rejects it. The registry's own `approve` gate still runs on every approved call.
 */
export type OpenAIAgentsToolsOptions = AdapterToolsOptions;

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
  const bound = adapterTools(registry, {
    ...options,
    caller: 'toOpenAIAgentsTools',
    callIdOf,
    signalOf,
  });
  return bound.map(({ spec, needsApproval, call }) =>
    tool({
      name: spec.name,
      description: spec.description,
      // A copy: the registry's schema is frozen; the SDK only forwards it (no validation).
      parameters: structuredClone(spec.inputSchema) as NonStrictParameters,
      strict: false,
      ...(needsApproval === undefined
        ? {}
        : {
            needsApproval:
              typeof needsApproval === 'boolean'
                ? needsApproval
                : (_context: unknown, input: unknown) => needsApproval(input),
          }),
      execute: async (input, _context, details) => {
        const response = await call(input, details);
        return toolResultForModel(response, spec.name).content;
      },
    }),
  );
}

// Where the runner puts the model's call id and the run's signal in execute's details; `call`
// checks the values and catches a read that throws (a hand-made or hostile details object), so
// Candor's answer is never turned into the SDK's generic error text.
const callIdOf = (details: unknown): unknown =>
  (details as { readonly toolCall?: { readonly callId?: unknown } }).toolCall
    ?.callId;
const signalOf = (details: unknown): unknown =>
  (details as { readonly signal?: unknown }).signal;
