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
export type OpenAIAgentsToolsOptions = AdapterToolsOptions & {
  /**
   * Leave a tool whose circuit is open out of the model's next request (the SDK's `isEnabled`,
   * asked before each turn), as Candor's own `Agent` does; it is offered again once the circuit
   * closes. Default `true`; `false` offers every tool always (a call to an open one then answers
   * `[CIRCUIT_OPEN]`).
   */
  readonly hideOpenCircuits?: boolean;
};

// Whether `name`'s circuit is open now: the registry lists it, but not among the closed ones.
function circuitIsOpen(registry: ToolRegistry, name: string): boolean {
  return !registry
    .specs({ hideOpenCircuits: true })
    .some((spec) => spec.name === name);
}

/**
 * The registry's tools as OpenAI Agents SDK function tools. Every `execute` goes through
 * `registry.call()` (validation, approval gate, breaker, timeout) with the model's call id and the
 * run's abort signal, and returns `toolResultForModel`'s text: an error starts with its code, a
 * partial result says it is incomplete, a denial says the call was NOT executed. It never throws,
 * so no outcome reaches the runner as a crash. Parameters are the registry's JSON Schemas
 * (`strict: false`); the registry validates the arguments. A tool whose circuit is open is not
 * offered to the model (`isEnabled`; `hideOpenCircuits: false` turns that off). It is an array: pick tools with
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
  const { hideOpenCircuits = true, ...shared } = options;
  if (typeof hideOpenCircuits !== 'boolean')
    throw new TypeError(
      `toOpenAIAgentsTools: hideOpenCircuits must be a boolean, got ${typeof hideOpenCircuits}`,
    );
  const bound = adapterTools(registry, {
    ...shared,
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
      ...(hideOpenCircuits
        ? { isEnabled: () => !circuitIsOpen(registry, spec.name) }
        : {}),
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
