import {
  type FinishReason,
  type JsonValue,
  type ModelEvent,
  type ProviderData,
} from './chat-model.ts';
import { argumentsText } from './content-parts.ts';
import { ModelError } from './model-error.ts';
import { type CommitState } from './retry-before-first-chunk.ts';

/**
 * One part of a content-part stream, the answer side of {@link toContentParts}'s model (the AI
 * SDK's provider stream, v2 and v3). Only the fields read here matter: `text-delta` and
 * `reasoning-delta` (`id`, `delta`), `text-end` and `reasoning-end` (`id`), `tool-call`
 * (`toolCallId`, `toolName`, `input`), `response-metadata` (`id`, `modelId`), `finish`
 * (`finishReason`, `usage`) and `error` (`error`), each with its `providerMetadata`; a part of
 * another type is skipped rather than misread.
 */
export type ContentStreamPart = Readonly<Record<string, unknown>> & {
  readonly type: string;
};

// The `ProviderData` key of the AI SDK's `providerMetadata` (see `ProviderData`).
const AI_SDK_PROVIDER_DATA_KEY = 'aiSdk';

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

// v3 counts reasoning inside `outputTokens.reasoning`, v2 beside it as `reasoningTokens`.
function reasoningTokens(usage: Readonly<Record<string, unknown>>): unknown {
  const output = usage['outputTokens'];
  return typeof output === 'object' && output !== null
    ? (output as { reasoning?: unknown }).reasoning
    : usage['reasoningTokens'];
}

type Response = NonNullable<
  Extract<ModelEvent, { type: 'finish' }>['response']
>;

function finish(
  part: ContentStreamPart,
  response: Response | undefined,
): ModelEvent {
  const raw = part['finishReason'];
  const unified =
    typeof raw === 'string'
      ? raw
      : (raw as { unified?: unknown } | undefined)?.unified;
  const usage = part['usage'] as Readonly<Record<string, unknown>> | undefined;
  const reasoning = usage === undefined ? undefined : reasoningTokens(usage);
  return {
    type: 'finish',
    finishReason: finishReasons[String(unified)] ?? 'other',
    ...(usage === undefined
      ? {}
      : {
          usage: {
            inputTokens: tokens(usage['inputTokens']),
            outputTokens: tokens(usage['outputTokens']),
            ...(typeof reasoning === 'number'
              ? { reasoningTokens: reasoning }
              : {}),
          },
        }),
    ...(response === undefined ? {} : { response }),
  };
}

function isMetadata(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// A part's `providerMetadata` kept whole under the AI SDK's key, to go back as `providerOptions`.
function providerData(metadata: unknown): { providerData?: ProviderData } {
  if (!isMetadata(metadata) || Object.keys(metadata).length === 0) return {};
  return {
    providerData: {
      [AI_SDK_PROVIDER_DATA_KEY]: metadata,
    },
  };
}

function responseOf(part: ContentStreamPart): Response | undefined {
  const { id, modelId } = part;
  const response = {
    ...(typeof id === 'string' ? { id } : {}),
    ...(typeof modelId === 'string' ? { model: modelId } : {}),
  };
  return Object.keys(response).length === 0 ? undefined : response;
}

/**
 * A content-part stream as model events: text, reasoning and tool calls as they come (committing
 * the attempt), each part's `providerMetadata` kept as `providerData.aiSdk` (the last one a part
 * carried, on its start, a delta or its end, as the AI SDK's own `streamText` keeps it), the
 * `response-metadata` part as `finish.response`, an `error` part thrown as it is, and a stream
 * that ends without `finish` an `incomplete` model error.
 */
export async function* contentPartEvents(
  parts: AsyncIterable<ContentStreamPart>,
  state: CommitState,
): AsyncGenerator<ModelEvent, void, undefined> {
  // Metadata of the open text and reasoning parts, by the stream's part id.
  const metadata = new Map<string, unknown>();
  const keyOf = (part: ContentStreamPart): string =>
    `${part.type.startsWith('text') ? 'text' : 'reasoning'}:${String(part['id'])}`;
  const remember = (part: ContentStreamPart): void => {
    if (part['providerMetadata'] != null)
      metadata.set(keyOf(part), part['providerMetadata']);
  };
  const take = (part: ContentStreamPart): unknown => {
    remember(part);
    const key = keyOf(part);
    const found = metadata.get(key);
    metadata.delete(key);
    return found;
  };
  let response: Response | undefined;
  for await (const part of parts) {
    const { type, delta } = part;
    if (type === 'text-start' || type === 'reasoning-start') {
      remember(part);
    } else if (type === 'text-delta' && typeof delta === 'string') {
      remember(part);
      state.committed = true;
      yield { type: 'text-delta', text: delta };
    } else if (type === 'reasoning-delta' && typeof delta === 'string') {
      remember(part);
      state.committed = true;
      yield { type: 'reasoning-delta', text: delta };
    } else if (type === 'text-end') {
      state.committed = true;
      yield { type: 'text-end', ...providerData(take(part)) };
    } else if (type === 'reasoning-end') {
      state.committed = true;
      yield { type: 'reasoning-end', ...providerData(take(part)) };
    } else if (type === 'tool-call') {
      state.committed = true;
      const call = {
        id: String(part['toolCallId']),
        name: String(part['toolName']),
        arguments: argumentsText(part['input']),
        ...providerData(part['providerMetadata']),
      };
      yield { type: 'tool-call', call };
    } else if (type === 'response-metadata') {
      response = responseOf(part) ?? response;
    } else if (type === 'error') {
      throw part['error'];
    } else if (type === 'finish') {
      yield finish(part, response);
      return;
    }
  }
  throw new ModelError({
    kind: 'incomplete',
    message: 'The model stream ended without a finish part.',
  });
}
