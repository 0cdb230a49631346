import type { ProviderError } from './provider-protocol.ts';
import type { ScriptedReply } from './scripted-reply.ts';
import type { SentState } from './sent-state.ts';

// Gemini thought signatures, as documented at
// https://ai.google.dev/gemini-api/docs/thought-signatures: only the current turn is validated
// (everything after the latest user message with standard content such as text, i.e. not a
// functionResponse); the first functionCall part of each step in it must carry its signature;
// in parallel calls only the first part is signed; Gemini 3 models enforce this with a 400;
// `skip_thought_signature_validator` is the documented placeholder for calls the model did not
// produce. The error texts are the API's, as quoted in e.g.
// https://github.com/manthanabc/paws/issues/103 ("missing") and
// https://github.com/google-gemini/gemini-cli/issues/13467 ("Corrupted").

type JsonObject = Record<string, unknown>;

/** Google's documented placeholder that skips signature validation for one part. */
export const skipThoughtSignature = 'skip_thought_signature_validator';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): ProviderError {
  return { status: 400, code: 'INVALID_ARGUMENT', message };
}

function keysOf(call: JsonObject): readonly string[] {
  const name = typeof call['name'] === 'string' ? call['name'] : '';
  const keys = [`gemini:fc:${name}:${JSON.stringify(call['args'] ?? {})}`];
  if (typeof call['id'] === 'string' && call['id'] !== '') {
    keys.unshift(`gemini:fc:id:${call['id']}`);
  }
  return keys;
}

/** Records each call's signature (or `null`: sent unsigned) for the strict check. */
export function rememberSignatures(
  reply: ScriptedReply,
  sent: SentState,
  argsOf: (call: { readonly args: unknown }) => unknown,
): void {
  for (const call of reply.toolCalls) {
    const keys = keysOf({
      id: call.id,
      name: call.name,
      args: argsOf(call),
    });
    for (const key of keys) {
      sent.remember(key, call.thoughtSignature ?? null);
    }
  }
}

function partsOf(content: JsonObject): readonly JsonObject[] {
  const parts = content['parts'];
  return Array.isArray(parts) ? parts.filter(isObject) : [];
}

/** The index of the first content of the current turn (Google's definition). */
function currentTurnStart(contents: readonly JsonObject[]): number {
  for (let index = contents.length - 1; index >= 0; index -= 1) {
    const content = contents[index];
    if (content === undefined || content['role'] === 'model') continue;
    const parts = partsOf(content);
    if (parts.some((part) => typeof part['text'] === 'string')) return index;
  }
  return 0;
}

/**
 * Strict mode: a functionCall part of the current turn that the server sent signed must come
 * back with that signature (or the placeholder); on a Gemini 3 model, the first functionCall
 * part of each step the server did not send must carry a signature.
 */
export function checkThoughtSignatures(
  body: unknown,
  sent: SentState,
  model: string,
): ProviderError | undefined {
  if (!isObject(body) || !Array.isArray(body['contents'])) return undefined;
  const contents = (body['contents'] as unknown[]).filter(isObject);
  const enforcesAll = /gemini-3/i.test(model);
  for (
    let index = currentTurnStart(contents);
    index < contents.length;
    index += 1
  ) {
    const content = contents[index];
    if (content?.['role'] !== 'model') continue;
    const calls = partsOf(content).filter((part) =>
      isObject(part['functionCall']),
    );
    for (const [position, part] of calls.entries()) {
      const call = part['functionCall'] as JsonObject;
      const key = keysOf(call).find((candidate) => sent.has(candidate));
      const expected =
        key === undefined
          ? position === 0 && enforcesAll
            ? 'any'
            : null
          : (sent.recall(key) as string | null);
      if (expected === null) continue;
      const got = part['thoughtSignature'];
      if (typeof got !== 'string' || got === '') {
        // "position" counts contents from 1, as in the errors Google returns.
        return invalid(
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String(call['name'])}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
        );
      }
      if (
        got !== skipThoughtSignature &&
        expected !== 'any' &&
        got !== expected
      ) {
        return invalid('Corrupted thought signature.');
      }
    }
  }
  return undefined;
}
