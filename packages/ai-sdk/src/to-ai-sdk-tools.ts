import { type ToolRegistry } from '@candor/registry';
import {
  adapterTools,
  type AdapterToolsOptions,
  type ToolResponse,
  typedResultForModel,
} from '@candor/tools';
import { jsonSchema, tool, type ToolSet } from 'ai';

/**
 * Options of {@link toAISDKTools}: `only` some tools by name, and `needsApproval` to hand a
 * call to the SDK's tool approval (AI SDK 6 and later) before it reaches the registry, whose own
 * `approve` gate still runs on every call.
 */
export type AISDKToolsOptions = AdapterToolsOptions;

type ModelOutput = ReturnType<NonNullable<ToolSet[string]['toModelOutput']>>;

/**
 * The registry's tools as an AI SDK `ToolSet`. Every `execute` goes through `registry.call()` (so
 * validation, approval, the breaker and the timeout all apply) with the SDK's `toolCallId` and
 * `abortSignal`; it never throws. `toModelOutput` tells the model what `toolResultForModel` says,
 * typed by `typedResultForModel` (`error-text` with the code, `execution-denied` for a denial).
 * Input schemas are the registry's JSON Schemas; the registry validates the arguments.
 *
 * @example
 * ```ts
 * const { text } = await generateText({
 *   model,
 *   tools: toAISDKTools(registry),
 *   stopWhen: stepCountIs(5),
 *   prompt: 'What is 2 + 3 * 4?',
 * });
 * ```
 */
export function toAISDKTools(
  registry: ToolRegistry,
  options: AISDKToolsOptions = {},
): ToolSet {
  const tools: ToolSet = {};
  const bound = adapterTools(registry, {
    ...options,
    caller: 'toAISDKTools',
    callIdOf: toolCallIdOf,
    signalOf: abortSignalOf,
  });
  for (const { spec, needsApproval, call } of bound) {
    tools[spec.name] = tool<unknown, ToolResponse>({
      description: spec.description,
      inputSchema: jsonSchema(
        spec.inputSchema as Parameters<typeof jsonSchema>[0],
      ),
      ...(needsApproval === undefined ? {} : { needsApproval }),
      execute: (input, options) => call(input, options),
      toModelOutput: ({ output }) =>
        typedResultForModel(output, spec.name) as ModelOutput,
    });
  }
  return tools;
}

// Where the SDK puts the call id and the signal in execute's options; `call` checks the values
// and catches a read that throws (no options, a hostile getter), so execute never throws.
const toolCallIdOf = (options: unknown): unknown =>
  (options as { readonly toolCallId?: unknown }).toolCallId;
const abortSignalOf = (options: unknown): unknown =>
  (options as { readonly abortSignal?: unknown }).abortSignal;
