import { type ChatMessage } from '../../chat-model.ts';
import {
  type ContentPartMessage,
  objectInput,
  toContentParts,
} from '../../content-parts.ts';

type Part = ContentPartMessage['content'][number];

/**
 * One content part as Anthropic blocks. Reasoning goes back only as Anthropic gave it, verbatim:
 * a `thinking` block with its signature, or a `redacted_thinking` block with its data; reasoning
 * from another provider (or unsigned) is dropped, never sent as text. Anthropic answers 400 when
 * the last assistant turn does not start with its thinking blocks, unmodified and in order:
 * https://platform.claude.com/docs/en/build-with-claude/extended-thinking#preserving-thinking-blocks
 */
function toBlocks(part: Part): Record<string, unknown>[] {
  switch (part.type) {
    case 'text':
      // Anthropic refuses empty text blocks.
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'reasoning': {
      const own = part.providerData?.['anthropic'];
      const signature = own?.['signature'];
      const redactedData = own?.['redactedData'];
      // An empty string (a hand-edited history) is no signature: Anthropic refuses it.
      if (typeof redactedData === 'string' && redactedData !== '')
        return [{ type: 'redacted_thinking', data: redactedData }];
      if (typeof signature === 'string' && signature !== '')
        return [{ type: 'thinking', thinking: part.text, signature }];
      return [];
    }
    case 'tool-call':
      // The registry already told the model when its arguments were malformed; echo an object.
      return [
        {
          type: 'tool_use',
          id: part.toolCallId,
          name: part.toolName,
          input: objectInput(part.input),
        },
      ];
    case 'tool-result':
      return [
        {
          type: 'tool_result',
          tool_use_id: part.toolCallId,
          content: part.output.value,
          ...(part.output.type === 'error-text' ? { is_error: true } : {}),
        },
      ];
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
    content: content.flatMap(toBlocks),
  };
}
