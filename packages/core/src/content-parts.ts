import { type ChatMessage, type ProviderData } from './chat-model.ts';
import { assistantParts } from './assistant-turn.ts';

/** Text in a user or assistant turn. */
export interface TextPart {
  readonly type: 'text';
  readonly text: string;
  /** The provider data the text came with (assistant turns only). */
  readonly providerData?: ProviderData;
}

/** An assistant turn's reasoning, with what its provider needs back. */
export interface ReasoningContentPart {
  readonly type: 'reasoning';
  readonly text: string;
  readonly redacted?: boolean;
  readonly providerData?: ProviderData;
}

/** A tool call of an assistant turn, its arguments parsed (or the model's text, if not JSON). */
export interface ToolCallPart {
  readonly type: 'tool-call';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly providerData?: ProviderData;
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
      readonly content: readonly (
        TextPart | ReasoningContentPart | ToolCallPart
      )[];
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
 * One message as content parts: an assistant's parts in their order (reasoning included, each
 * with its provider data), its empty text left out unless it carries provider data, tool calls
 * with their parsed arguments, and a failed tool result as `error-text`.
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
        content: assistantParts(message).flatMap(
          (part): (TextPart | ReasoningContentPart | ToolCallPart)[] => {
            switch (part.type) {
              case 'text':
                return part.text === '' && part.providerData === undefined
                  ? []
                  : [part];
              case 'reasoning':
                return [part];
              case 'tool-call':
                return [
                  {
                    type: 'tool-call' as const,
                    toolCallId: part.call.id,
                    toolName: part.call.name,
                    input: parsedArguments(part.call.arguments),
                    ...(part.call.providerData === undefined
                      ? {}
                      : { providerData: part.call.providerData }),
                  },
                ];
            }
          },
        ),
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
