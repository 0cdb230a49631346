import { type ChatMessage, type ChatRequest } from '../../chat-model.ts';
import { objectInput, parsedArguments } from '../../content-parts.ts';

/** A call id this wire made up because Gemini sent none; it never goes back to Gemini. */
export const SYNTHETIC_CALL_ID_PREFIX = 'candor-gemini-call-';

/** One Gemini `Content` as JSON. */
export type GeminiContent = Record<string, unknown>;

function argsObject(args: string): Record<string, unknown> {
  // The registry already told the model its arguments were malformed; echo empty args.
  return objectInput(parsedArguments(args));
}

function realId(id: string): { id?: string } {
  return id.startsWith(SYNTHETIC_CALL_ID_PREFIX) ? {} : { id };
}

function toContent(message: ChatMessage): GeminiContent {
  switch (message.role) {
    case 'user':
      return { role: 'user', parts: [{ text: message.content }] };
    case 'assistant':
      return {
        role: 'model',
        parts: [
          ...(message.content === '' ? [] : [{ text: message.content }]),
          ...message.toolCalls.map((call) => ({
            functionCall: {
              ...realId(call.id),
              name: call.name,
              args: argsObject(call.arguments),
            },
          })),
        ],
      };
    case 'tool':
      // Gemini has no error flag. Its documented convention: `output` for a result, `error` for
      // a failure; the error carries the code as well as the model-visible text.
      return {
        role: 'user',
        parts: message.results.map((result) => ({
          functionResponse: {
            ...realId(result.callId),
            name: result.toolName,
            response: result.isError
              ? {
                  error: {
                    code: result.code ?? 'UNKNOWN',
                    message: result.content,
                  },
                }
              : { output: result.content },
          },
        })),
      };
  }
}

/** The conversation as Gemini `contents`, and the instructions as `systemInstruction`. */
export function convertToGeminiContents(request: ChatRequest): {
  contents: GeminiContent[];
  systemInstruction?: GeminiContent;
} {
  return {
    contents: request.messages.map(toContent),
    ...(request.instructions === undefined
      ? {}
      : { systemInstruction: { parts: [{ text: request.instructions }] } }),
  };
}
