import {
  checkThoughtSignatures,
  rememberSignatures,
} from './gemini-thought-signatures.ts';
import type { ProviderError } from './provider-protocol.ts';
import type { ScriptedReply, ScriptedToolCall } from './scripted-reply.ts';
import type { SentState } from './sent-state.ts';

// What OpenAI-compatible servers add to Chat Completions:
// - Gemini's OpenAI-compatible endpoint (`/v1beta/openai/chat/completions`,
//   https://ai.google.dev/gemini-api/docs/openai) carries a call's thought signature as
//   `extra_content.google.thought_signature` on the tool call, and validates it as the native
//   API does (https://ai.google.dev/gemini-api/docs/thought-signatures);
// - servers such as DeepSeek, vLLM and llama.cpp stream reasoning as `reasoning_content`.

type JsonObject = Record<string, unknown>;

/** The Gemini OpenAI-compatible path. */
export const geminiCompatPath = '/v1beta/openai/chat/completions';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `extra_content` for a signed call, to spread into its tool call. */
export function callExtras(call: ScriptedToolCall): JsonObject {
  return call.thoughtSignature === undefined
    ? {}
    : {
        extra_content: { google: { thought_signature: call.thoughtSignature } },
      };
}

/** The reasoning text sent as `reasoning_content`, or undefined without thinking blocks. */
export function reasoningContent(reply: ScriptedReply): string | undefined {
  const text = (reply.reasoning ?? [])
    .map((block) => (block.type === 'thinking' ? block.thinking : ''))
    .join('');
  return text === '' ? undefined : text;
}

function parsedArguments(value: unknown): unknown {
  if (typeof value !== 'string') return {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return {};
  }
}

/** Records each call's signature, under the same keys as the native Gemini wire. */
export function rememberCompatSignatures(
  reply: ScriptedReply,
  sent: SentState,
): void {
  rememberSignatures(reply, sent, (call) =>
    typeof call.args === 'string' ? parsedArguments(call.args) : call.args,
  );
}

/** Chat messages as Gemini contents, so the native current-turn rule can judge them. */
function asContents(messages: readonly JsonObject[]): JsonObject[] {
  return messages.map((message) => {
    if (message['role'] === 'assistant') {
      const calls = Array.isArray(message['tool_calls'])
        ? message['tool_calls'].filter(isObject)
        : [];
      return {
        role: 'model',
        parts: calls.map((call) => {
          const fn = isObject(call['function']) ? call['function'] : {};
          const extra = isObject(call['extra_content'])
            ? call['extra_content']
            : {};
          const google = isObject(extra['google']) ? extra['google'] : {};
          return {
            functionCall: {
              id: call['id'],
              name: fn['name'],
              args: parsedArguments(fn['arguments']),
            },
            ...(typeof google['thought_signature'] === 'string'
              ? { thoughtSignature: google['thought_signature'] }
              : {}),
          };
        }),
      };
    }
    return message['role'] === 'tool'
      ? { role: 'user', parts: [{ functionResponse: {} }] }
      : { role: 'user', parts: [{ text: '' }] };
  });
}

/** Strict mode on the Gemini-compatible path: Google's thought-signature rule. */
export function checkCompatSignatures(
  body: unknown,
  sent: SentState,
  path: string,
): ProviderError | undefined {
  if (path !== geminiCompatPath || !isObject(body)) return undefined;
  const messages = Array.isArray(body['messages'])
    ? body['messages'].filter(isObject)
    : [];
  const error = checkThoughtSignatures(
    { contents: asContents(messages) },
    sent,
    typeof body['model'] === 'string' ? body['model'] : '',
  );
  return error === undefined
    ? undefined
    : { ...error, code: null, type: 'invalid_request_error', param: null };
}
