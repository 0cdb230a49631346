import { type ModelToolSpec } from '../../chat-model.ts';

/** The request's tools as Anthropic tools; none means no `tools` key at all. */
export function prepareAnthropicTools(tools: readonly ModelToolSpec[]): {
  tools?: Record<string, unknown>[];
} {
  if (tools.length === 0) return {};
  return {
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    })),
  };
}
