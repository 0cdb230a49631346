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
    case 'assistant':
      return [
        {
          role: 'assistant',
          content:
            message.content === '' && message.toolCalls.length > 0
              ? null
              : message.content,
          ...(message.toolCalls.length === 0
            ? {}
            : {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }),
        },
      ];
    case 'tool':
      // OpenAI has no error flag: the content itself says "[CODE] …" for a failed call.
      return message.results.map((result) => ({
        role: 'tool',
        tool_call_id: result.callId,
        content: result.content,
      }));
  }
}
