import { type ToolRegistry } from '@candor/registry';
import {
  outcomeOf,
  type ToolResponse,
  toolResultForModel,
} from '@candor/tools';
import { jsonSchema, tool, type ToolSet } from 'ai';

/** Decides per call whether the AI SDK asks for approval before the tool runs. */
export type NeedsApproval =
  | boolean
  | ((toolName: string, input: unknown) => boolean | PromiseLike<boolean>);

/** Options of {@link toAISDKTools}. */
export interface AISDKToolsOptions {
  /** Only these tools, by name. Default: every registered tool. */
  readonly only?: readonly string[];
  /**
   * Hands the call to the AI SDK's tool approval (`needsApproval`, AI SDK 6 and later) before it
   * reaches the registry. The registry's own `approve` gate still runs on every call.
   */
  readonly needsApproval?: NeedsApproval;
}

/** What {@link modelOutputFor} gives the AI SDK: the SDK's own tool output shapes. */
export type CandorModelOutput =
  | { readonly type: 'text'; readonly value: string }
  | { readonly type: 'json'; readonly value: unknown }
  | { readonly type: 'error-text'; readonly value: string }
  | { readonly type: 'execution-denied'; readonly reason: string };

/**
 * The AI SDK output for one response, worded by `toolResultForModel`: success and partial as text
 * (success as JSON when the tool returned only data), an error as `error-text` that starts with
 * its code, a denial as `execution-denied` whose reason says the call did not run.
 */
export function modelOutputFor(
  response: ToolResponse,
  toolName: string,
): CandorModelOutput {
  const { content, isError } = toolResultForModel(response, toolName);
  const outcome = outcomeOf(response);
  if (outcome === 'denied')
    return { type: 'execution-denied', reason: content };
  if (isError) return { type: 'error-text', value: content };
  if (outcome === 'success' && response.text === '' && 'data' in response) {
    // The content is the data's JSON only when it could be serialised; parsing it back gives the
    // SDK a plain JSON value (no BigInt, no cycles, no undefined).
    try {
      return { type: 'json', value: JSON.parse(content) as unknown };
    } catch {
      // toolResultForModel said in words why the data cannot be shown: send those words.
    }
  }
  return { type: 'text', value: content };
}

function approvalFor(
  name: string,
  needsApproval: NeedsApproval | undefined,
): { needsApproval?: boolean | ((input: unknown) => PromiseLike<boolean>) } {
  if (needsApproval === undefined) return {};
  if (typeof needsApproval === 'boolean') return { needsApproval };
  return {
    needsApproval: async (input: unknown) => await needsApproval(name, input),
  };
}

/**
 * The registry's tools as an AI SDK `ToolSet`. Every `execute` goes through `registry.call()` (so
 * validation, approval, the breaker and the timeout all apply) with the SDK's `toolCallId` and
 * `abortSignal`; it never throws. `toModelOutput` tells the model what `toolResultForModel` says.
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
  const specs = registry.specs({ format: 'json-schema' });
  const only = options.only === undefined ? undefined : new Set(options.only);
  const unknown = [...(only ?? [])].filter(
    (name) => !specs.some((spec) => spec.name === name),
  );
  if (unknown.length > 0) {
    throw new TypeError(
      `toAISDKTools: no registered tool named ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
    );
  }
  const tools: ToolSet = {};
  for (const spec of specs) {
    if (only !== undefined && !only.has(spec.name)) continue;
    const name = spec.name;
    tools[name] = tool<unknown, ToolResponse>({
      description: spec.description,
      inputSchema: jsonSchema(
        spec.inputSchema as Parameters<typeof jsonSchema>[0],
      ),
      ...approvalFor(name, options.needsApproval),
      execute: (input, { toolCallId, abortSignal }) =>
        registry.call(name, input, {
          callId: toolCallId,
          ...(abortSignal === undefined ? {} : { signal: abortSignal }),
        }),
      toModelOutput: ({ output }) =>
        modelOutputFor(output, name) as ReturnType<
          NonNullable<ToolSet[string]['toModelOutput']>
        >,
    });
  }
  return tools;
}
