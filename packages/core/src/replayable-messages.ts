import { type SecretRedactor } from '@candor/tools';
import { type ChatMessage, type ModelToolCall } from './chat-model.ts';

/**
 * The history as a next turn can send it: a last assistant turn whose tool calls never got
 * results (the run was aborted while they ran) is left out, since providers reject a tool call
 * with no result after it.
 */
export function replayable(
  messages: readonly ChatMessage[],
): readonly ChatMessage[] {
  const last = messages.at(-1);
  return last?.role === 'assistant' && last.toolCalls.length > 0
    ? messages.slice(0, -1)
    : [...messages];
}

/** The arguments text with secret-looking values censored; unparsable text carries no keys. */
function censorArguments(text: string, redactor: SecretRedactor): string {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    return text;
  }
  return redactor.secretValues(decoded).length === 0
    ? text
    : JSON.stringify(redactor.redact(decoded));
}

/**
 * The calls with secret-looking argument values censored (a call without any is kept as it
 * is): only the registry reads the raw arguments; every other surface (events, steps, the
 * history sent back to the model, the run's messages) reads them censored, once.
 */
export function censoredCalls(
  calls: readonly ModelToolCall[],
  redactor: SecretRedactor,
): ModelToolCall[] {
  return calls.map((call) => {
    const censored = censorArguments(call.arguments, redactor);
    return censored === call.arguments
      ? call
      : { ...call, arguments: censored };
  });
}
