import { type ChatMessage } from './chat-model.ts';

/** Text in a user or assistant turn. */
export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

/** A tool call of an assistant turn, its arguments parsed (or the model's text, if not JSON). */
export interface ToolCallPart {
  readonly type: 'tool-call';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}

/** A tool result: `error-text` exactly when the call failed (a denial did not fail). */
export interface ToolResultPart {
  readonly type: 'tool-result';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly output: {
    readonly type: 'text' | 'error-text';
    readonly value: string;
  };
}

/**
 * One conversation message as content parts, in the shape of the AI SDK's provider prompt
 * (`LanguageModelV3Prompt`), which providers with typed content blocks map part by part.
 */
export type ContentPartMessage =
  | { readonly role: 'user'; readonly content: readonly TextPart[] }
  | {
      readonly role: 'assistant';
      readonly content: readonly (TextPart | ToolCallPart)[];
    }
  | { readonly role: 'tool'; readonly content: readonly ToolResultPart[] };

/** A model's tool-call arguments as JSON, or as the text it sent when that is not JSON. */
export function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A model's malformed arguments stay as it sent them: the registry already answered them.
    return text;
  }
}

/** A tool call's input as the arguments text of a `ModelToolCall`: a string stays as it is. */
export function argumentsText(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? {});
}

/** A tool call's input where a provider needs an object: anything else becomes `{}`. */
export function objectInput(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

/**
 * One message as content parts: an assistant's empty text is left out, tool calls carry their
 * parsed arguments, and a failed tool result is `error-text`.
 */
export function toContentParts(message: ChatMessage): ContentPartMessage {
  switch (message.role) {
    case 'user':
      return {
        role: 'user',
        content: [{ type: 'text', text: message.content }],
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(message.content === ''
            ? []
            : [{ type: 'text' as const, text: message.content }]),
          ...message.toolCalls.map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.name,
            input: parsedArguments(call.arguments),
          })),
        ],
      };
    case 'tool':
      return {
        role: 'tool',
        content: message.results.map((result) => ({
          type: 'tool-result' as const,
          toolCallId: result.callId,
          toolName: result.toolName,
          output: {
            type: result.isError ? ('error-text' as const) : ('text' as const),
            value: result.content,
          },
        })),
      };
  }
}
