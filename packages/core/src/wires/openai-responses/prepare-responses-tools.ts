import { type ModelToolSpec } from '../../chat-model.ts';

/**
 * The request's tools as Responses function tools, flat rather than Chat Completions'
 * `{ function: {…} }` (openai-node's `FunctionTool`). `strict` is sent as asked, `false` by
 * default: strict mode needs every property required and `additionalProperties: false`, which
 * a tool with optional inputs does not have. None means no `tools` key at all.
 */
export function prepareResponsesTools(
  tools: readonly ModelToolSpec[],
  strict: boolean,
): { tools?: Record<string, unknown>[] } {
  if (tools.length === 0) return {};
  return {
    tools: tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
      strict,
    })),
  };
}
