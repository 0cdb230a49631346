import { type ChatMessage } from '../../chat-model.ts';
import {
  type ContentPartMessage,
  objectInput,
  toContentParts,
} from '../../content-parts.ts';

type Part = ContentPartMessage['content'][number];

function toBlock(part: Part): Record<string, unknown> {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'reasoning':
      throw new TypeError('reasoning parts are filtered out before toBlock');
    case 'tool-call':
      // The registry already told the model when its arguments were malformed; echo an object.
      return {
        type: 'tool_use',
        id: part.toolCallId,
        name: part.toolName,
        input: objectInput(part.input),
      };
    case 'tool-result':
      return {
        type: 'tool_result',
        tool_use_id: part.toolCallId,
        content: part.output.value,
        ...(part.output.type === 'error-text' ? { is_error: true } : {}),
      };
  }
}

/**
 * One conversation message as an Anthropic Messages message, block by content part. Failed tool
 * results carry `is_error: true`; denials and partial results do not.
 */
export function convertToAnthropicMessage(
  message: ChatMessage,
): Record<string, unknown> {
  if (message.role === 'user')
    return { role: 'user', content: message.content };
  const { role, content } = toContentParts(message);
  return {
    role: role === 'tool' ? 'user' : 'assistant',
    // Reasoning is not replayed yet; it never goes back as text.
    content: content.filter((part) => part.type !== 'reasoning').map(toBlock),
  };
}
