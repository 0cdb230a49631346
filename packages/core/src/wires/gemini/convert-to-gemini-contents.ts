import { assistantParts } from '../../assistant-turn.ts';
import {
  type AssistantPart,
  type ChatMessage,
  type ChatRequest,
  type ProviderData,
} from '../../chat-model.ts';
import { objectInput, parsedArguments } from '../../content-parts.ts';

/**
 * Google's documented stand-in for a function call that has no signature of Gemini's (a
 * conversation moved here from another provider): with it, Gemini 3 skips validating that call
 * instead of answering 400. https://ai.google.dev/gemini-api/docs/thought-signatures#faqs
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

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

function signature(data: ProviderData | undefined): string | undefined {
  const value = data?.['google']?.['thoughtSignature'];
  // An empty string (a hand-edited history) is no signature.
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function withSignature(
  part: Record<string, unknown>,
  value: string | undefined,
): Record<string, unknown> {
  return value === undefined ? part : { ...part, thoughtSignature: value };
}

/**
 * One assistant part as Gemini parts, each signature back on the part it came with. Gemini's own
 * thoughts go back as thought parts; another provider's reasoning is dropped, never sent as
 * text, and another provider's data is never sent.
 */
function toParts(part: AssistantPart): Record<string, unknown>[] {
  switch (part.type) {
    case 'reasoning':
      // Another provider's, or an empty unsigned thought: nothing Gemini needs back.
      return part.providerData?.['google'] === undefined ||
        (part.text === '' && signature(part.providerData) === undefined)
        ? []
        : [
            withSignature(
              { text: part.text, thought: true },
              signature(part.providerData),
            ),
          ];
    case 'text': {
      const signed = signature(part.providerData);
      return part.text === '' && signed === undefined
        ? []
        : [withSignature({ text: part.text }, signed)];
    }
    case 'tool-call':
      return [
        withSignature(
          {
            functionCall: {
              ...realId(part.call.id),
              name: part.call.name,
              args: argsObject(part.call.arguments),
            },
          },
          signature(part.call.providerData),
        ),
      ];
  }
}

/**
 * A model turn. In the current turn (`needsSignature`), a step whose first function call came
 * from another provider (no `google` data) gets Google's placeholder signature: Gemini 3
 * validates the first call of each step of the current turn only (parallel calls are signed
 * once, on the first). A call of Gemini's own goes back as it came, signed or not.
 */
function modelContent(
  message: Extract<ChatMessage, { role: 'assistant' }>,
  needsSignature: boolean,
): GeminiContent {
  const parts: Record<string, unknown>[] = [];
  let firstCall = true;
  for (const part of assistantParts(message)) {
    const converted = toParts(part);
    if (part.type === 'tool-call') {
      if (
        firstCall &&
        needsSignature &&
        part.call.providerData?.['google'] === undefined
      )
        converted[0] = { ...converted[0], thoughtSignature: SKIP_SIGNATURE };
      firstCall = false;
    }
    parts.push(...converted);
  }
  return { role: 'model', parts };
}

function toContent(message: ChatMessage, currentTurn: boolean): GeminiContent {
  switch (message.role) {
    case 'user':
      return { role: 'user', parts: [{ text: message.content }] };
    case 'assistant':
      return modelContent(message, currentTurn);
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
  // The current turn starts after the last user message with text (tool results do not count).
  let turnStart = 0;
  request.messages.forEach((message, index) => {
    if (message.role === 'user') turnStart = index + 1;
  });
  return {
    contents: request.messages.map((message, index) =>
      toContent(message, index >= turnStart),
    ),
    ...(request.instructions === undefined
      ? {}
      : { systemInstruction: { parts: [{ text: request.instructions }] } }),
  };
}
