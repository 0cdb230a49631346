import { assistantParts } from './assistant-turn.ts';
import { type ChatMessage } from './chat-model.ts';

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The conversation in the GenAI conventions' message shape, before redaction: text, reasoning
 * (`type: 'reasoning'`, its text only, never a provider's signature) and tool calls in their
 * order, and tool results. https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-input-messages.json
 */
export function conventionMessages(
  messages: readonly ChatMessage[],
): unknown[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'user':
        return {
          role: 'user',
          parts: [{ type: 'text', content: message.content }],
        };
      case 'assistant':
        return {
          role: 'assistant',
          parts: assistantParts(message).flatMap((part): unknown[] => {
            switch (part.type) {
              case 'text':
                return part.text === ''
                  ? []
                  : [{ type: 'text', content: part.text }];
              case 'reasoning':
                return part.text === ''
                  ? []
                  : [{ type: 'reasoning', content: part.text }];
              case 'tool-call':
                return [
                  {
                    type: 'tool_call',
                    id: part.call.id,
                    name: part.call.name,
                    arguments: parsedArguments(part.call.arguments),
                  },
                ];
            }
          }),
        };
      case 'tool':
        return {
          role: 'tool',
          parts: message.results.map((result) => ({
            type: 'tool_call_response',
            id: result.callId,
            response: result.content,
          })),
        };
    }
  });
}
