import { type ChatMessage } from '../../chat-model.ts';

function inputObject(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // The registry already told the model its arguments were malformed; echo an empty input.
  }
  return {};
}

/**
 * One conversation message as an Anthropic Messages message. Failed tool results carry
 * `is_error: true`; denials and partial results do not.
 */
export function convertToAnthropicMessage(
  message: ChatMessage,
): Record<string, unknown> {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(message.content === ''
            ? []
            : [{ type: 'text', text: message.content }]),
          ...message.toolCalls.map((call) => ({
            type: 'tool_use',
            id: call.id,
            name: call.name,
            input: inputObject(call.arguments),
          })),
        ],
      };
    case 'tool':
      return {
        role: 'user',
        content: message.results.map((result) => ({
          type: 'tool_result',
          tool_use_id: result.callId,
          content: result.content,
          ...(result.isError ? { is_error: true } : {}),
        })),
      };
  }
}
