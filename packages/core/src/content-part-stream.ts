import { type FinishReason, type ModelEvent } from './chat-model.ts';
import { argumentsText } from './content-parts.ts';
import { ModelError } from './model-error.ts';
import { type CommitState } from './retry-before-first-chunk.ts';

/**
 * One part of a content-part stream, the answer side of {@link toContentParts}'s model (the AI
 * SDK's provider stream, v2 and v3). Only the fields read here matter: `text-delta` (`delta`),
 * `tool-call` (`toolCallId`, `toolName`, `input`), `finish` (`finishReason`, `usage`) and `error`
 * (`error`); a part of another type is skipped rather than misread.
 */
export type ContentStreamPart = Readonly<Record<string, unknown>> & {
  readonly type: string;
};

const finishReasons: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  'tool-calls': 'tool_calls',
  length: 'length',
  'content-filter': 'content_filter',
};

// v2 reports a token count as a number, v3 as an object with a `total`.
function tokens(value: unknown): number {
  const count =
    typeof value === 'object'
      ? (value as { total?: unknown } | null)?.total
      : value;
  return typeof count === 'number' ? count : 0;
}

function finish(part: ContentStreamPart): ModelEvent {
  const raw = part['finishReason'];
  const unified =
    typeof raw === 'string'
      ? raw
      : (raw as { unified?: unknown } | undefined)?.unified;
  const usage = part['usage'] as
    { inputTokens?: unknown; outputTokens?: unknown } | undefined;
  return {
    type: 'finish',
    finishReason: finishReasons[String(unified)] ?? 'other',
    ...(usage === undefined
      ? {}
      : {
          usage: {
            inputTokens: tokens(usage.inputTokens),
            outputTokens: tokens(usage.outputTokens),
          },
        }),
  };
}

/**
 * A content-part stream as model events: text and tool calls as they come (committing the
 * attempt), an `error` part thrown as it is, and a stream that ends without `finish` an
 * `incomplete` model error.
 */
export async function* contentPartEvents(
  parts: AsyncIterable<ContentStreamPart>,
  state: CommitState,
): AsyncGenerator<ModelEvent, void, undefined> {
  for await (const part of parts) {
    const { type, delta } = part;
    if (type === 'text-delta' && typeof delta === 'string') {
      state.committed = true;
      yield { type: 'text-delta', text: delta };
    } else if (type === 'tool-call') {
      state.committed = true;
      const call = {
        id: String(part['toolCallId']),
        name: String(part['toolName']),
        arguments: argumentsText(part['input']),
      };
      yield { type: 'tool-call', call };
    } else if (type === 'error') {
      throw part['error'];
    } else if (type === 'finish') {
      yield finish(part);
      return;
    }
  }
  throw new ModelError({
    kind: 'incomplete',
    message: 'The model stream ended without a finish part.',
  });
}
