import { type ModelToolSpec } from '../../chat-model.ts';

/** The request's tools as Chat Completions function tools; none means no `tools` key at all. */
export function prepareOpenAITools(tools: readonly ModelToolSpec[]): {
  tools?: Record<string, unknown>[];
} {
  if (tools.length === 0) return {};
  return {
    tools: tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
      },
    })),
  };
}
