import {
  type ChatMessage,
  type JsonValue,
  type ProviderData,
  toContentParts,
} from '@candor/core';

/** The `ProviderData` key under which the AI SDK's `providerMetadata` is kept. */
export const AI_SDK_KEY = 'aiSdk';

/** A message of the AI SDK's provider prompt (`LanguageModelV3Prompt`), as sent to `doStream`. */
export type PromptMessage =
  | { readonly role: 'system'; readonly content: string }
  | {
      readonly role: 'user' | 'assistant' | 'tool';
      readonly content: readonly object[];
    };

// Only this wire's own data goes back, whole, as the part's `providerOptions`; a part another
// wire received (an Anthropic signature kept by `anthropic()`) goes back without its data.
function providerOptions(data: ProviderData | undefined): {
  providerOptions?: Readonly<Record<string, JsonValue>>;
} {
  const own = data?.[AI_SDK_KEY];
  return own === undefined ? {} : { providerOptions: own };
}

function toPromptMessage(message: ChatMessage): PromptMessage {
  const { role, content } = toContentParts(message);
  switch (role) {
    case 'user':
    case 'tool':
      return { role, content };
    case 'assistant':
      return {
        role,
        // As the SDK's own `toResponseMessages` does: an empty text part is left out, and each
        // part's `providerMetadata` from the stream goes back as its `providerOptions`.
        content: content.flatMap((part): object[] => {
          switch (part.type) {
            case 'text':
              return part.text === ''
                ? []
                : [
                    {
                      type: 'text',
                      text: part.text,
                      ...providerOptions(part.providerData),
                    },
                  ];
            case 'reasoning':
              return [
                {
                  type: 'reasoning',
                  text: part.text,
                  ...providerOptions(part.providerData),
                },
              ];
            case 'tool-call':
              return [
                {
                  type: 'tool-call',
                  toolCallId: part.toolCallId,
                  toolName: part.toolName,
                  input: part.input,
                  ...providerOptions(part.providerData),
                },
              ];
          }
        }),
      };
  }
}

/**
 * The conversation as the AI SDK's provider prompt: the instructions as a system message, then
 * each message as content parts, reasoning and tool calls carrying back the provider metadata
 * they streamed with (Gemini's `thoughtSignature`, Anthropic's reasoning signature) as
 * `providerOptions`, exactly as `generateText` and `streamText` build their next step's prompt.
 */
export function toLanguageModelPrompt(
  instructions: string | undefined,
  messages: readonly ChatMessage[],
): PromptMessage[] {
  return [
    ...(instructions === undefined
      ? []
      : [{ role: 'system' as const, content: instructions }]),
    ...messages.map(toPromptMessage),
  ];
}
