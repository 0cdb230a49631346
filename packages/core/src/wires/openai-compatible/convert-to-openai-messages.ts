import { assistantParts } from '../../assistant-turn.ts';
import { type ChatMessage, type ChatRequest } from '../../chat-model.ts';

/** One Chat Completions message as JSON. */
export type OpenAIMessage = Record<string, unknown>;

/** The request's instructions and conversation as Chat Completions `messages`. */
export function convertToOpenAIMessages(request: ChatRequest): OpenAIMessage[] {
  const wire: OpenAIMessage[] = [];
  if (request.instructions !== undefined)
    wire.push({ role: 'system', content: request.instructions });
  for (const message of request.messages) wire.push(...messageToWire(message));
  return wire;
}

function messageToWire(message: ChatMessage): OpenAIMessage[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: message.content }];
    case 'assistant': {
      // From the parts, which are authoritative, as on every other wire: a hand-edited message
      // whose `toolCalls` disagree with them sends the same calls here as there.
      const parts = assistantParts(message);
      const calls = parts.flatMap((p) =>
        p.type === 'tool-call' ? [p.call] : [],
      );
      const content = parts
        .map((p) => (p.type === 'text' ? p.text : ''))
        .join('');
      return [
        {
          role: 'assistant',
          content: content === '' && calls.length > 0 ? null : content,
          ...(calls.length === 0
            ? {}
            : {
                ...replayedReasoning(message),
                tool_calls: calls.map((call) => {
                  const extra =
                    call.providerData?.['openaiCompatible']?.['extraContent'];
                  return {
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: call.arguments },
                    ...(extra === undefined ? {} : { extra_content: extra }),
                  };
                }),
              }),
        },
      ];
    }
    case 'tool':
      // OpenAI has no error flag: the content itself says "[CODE] …" for a failed call.
      return message.results.map((result) => ({
        role: 'tool',
        tool_call_id: result.callId,
        content: result.content,
      }));
  }
}

/**
 * The reasoning of a turn with tool calls, back in the field it came in. DeepSeek's thinking
 * mode answers 400 when a tool-call turn's `reasoning_content` is missing from later requests,
 * and ignores it on turns without tool calls, where it is not sent:
 * https://api-docs.deepseek.com/guides/thinking_mode. Reasoning from another wire (no
 * `openaiCompatible` data) is never sent.
 */
function replayedReasoning(
  message: Extract<ChatMessage, { role: 'assistant' }>,
): Record<string, string> {
  const replayed: Record<string, string> = {};
  for (const part of assistantParts(message)) {
    if (part.type !== 'reasoning') continue;
    const field = part.providerData?.['openaiCompatible']?.['field'];
    if (field !== 'reasoning_content' && field !== 'reasoning') continue;
    replayed[field] = (replayed[field] ?? '') + part.text;
  }
  return replayed;
}
