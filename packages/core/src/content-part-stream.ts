import {
  type FinishReason,
  type ModelEvent,
  type ProviderData,
} from './chat-model.ts';
import { argumentsText } from './content-parts.ts';
import { ModelError } from './model-error.ts';
import { type CommitState } from './retry-before-first-chunk.ts';

/**
 * One part of a content-part stream, the answer side of {@link toContentParts}'s model (the AI
 * SDK's provider stream, v2 and v3). Only the fields read here matter: `text-delta` (`delta`),
 * `text-end`, `reasoning-delta` (`delta`), `reasoning-end`, `tool-call` (`toolCallId`, `toolName`,
 * `input`), each with its `providerMetadata`, `finish` (`finishReason`, `usage`) and `error`
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

// Reasoning tokens: v2 reports `reasoningTokens` beside the counts, v3 `outputTokens.reasoning`.
function reasoningTokens(usage: {
  outputTokens?: unknown;
  reasoningTokens?: unknown;
}): { reasoningTokens?: number } {
  const nested =
    typeof usage.outputTokens === 'object'
      ? (usage.outputTokens as { reasoning?: unknown } | null)?.reasoning
      : undefined;
  const count = nested ?? usage.reasoningTokens;
  // Providers without reasoning report 0 (v3 always fills the field): only a count is kept.
  return typeof count === 'number' && count > 0
    ? { reasoningTokens: count }
    : {};
}

function finish(part: ContentStreamPart): ModelEvent {
  const raw = part['finishReason'];
  const unified =
    typeof raw === 'string'
      ? raw
      : (raw as { unified?: unknown } | undefined)?.unified;
  const usage = part['usage'] as
    | {
        inputTokens?: unknown;
        outputTokens?: unknown;
        reasoningTokens?: unknown;
      }
    | undefined;
  return {
    type: 'finish',
    finishReason: finishReasons[String(unified)] ?? 'other',
    ...(usage === undefined
      ? {}
      : {
          usage: {
            inputTokens: tokens(usage.inputTokens),
            outputTokens: tokens(usage.outputTokens),
            ...reasoningTokens(usage),
          },
        }),
  };
}

type Metadata = Record<string, Record<string, unknown>>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The `providerMetadata` of a text or reasoning part, gathered from its `-start`, `-delta`s
 * and `-end` (the AI SDK's Anthropic provider sends a signature on a delta and redacted data on
 * the start, its Google provider a `thoughtSignature` on a delta), provider by provider.
 */
class PartMetadata {
  readonly #byId = new Map<string, Metadata>();

  add(part: ContentStreamPart): void {
    const value = part['providerMetadata'];
    if (!isRecord(value)) return;
    const id = String(part['id']);
    const gathered = this.#byId.get(id) ?? {};
    for (const [provider, fields] of Object.entries(value))
      if (isRecord(fields))
        gathered[provider] = { ...gathered[provider], ...fields };
    this.#byId.set(id, gathered);
  }

  /** The part's metadata whole under `aiSdk`, for the adapter to hand back as `providerOptions`. */
  take(part: ContentStreamPart): { providerData?: ProviderData } {
    this.add(part);
    const id = String(part['id']);
    const gathered = this.#byId.get(id);
    this.#byId.delete(id);
    return gathered === undefined
      ? {}
      : { providerData: { aiSdk: gathered as ProviderData[string] } };
  }
}

/** A tool call's `providerMetadata`, whole under `aiSdk`. */
function callMetadata(part: ContentStreamPart): {
  providerData?: ProviderData;
} {
  const value = part['providerMetadata'];
  return isRecord(value)
    ? { providerData: { aiSdk: value as ProviderData[string] } }
    : {};
}

/**
 * A content-part stream as model events: text, reasoning and tool calls as they come
 * (committing the attempt), each part's `providerMetadata` kept as `providerData.aiSdk`, an
 * `error` part thrown as it is, and a stream that ends without `finish` an `incomplete` model
 * error.
 */
export async function* contentPartEvents(
  parts: AsyncIterable<ContentStreamPart>,
  state: CommitState,
): AsyncGenerator<ModelEvent, void, undefined> {
  const gathered = new PartMetadata();
  for await (const part of parts) {
    const { type, delta } = part;
    if (type === 'text-start' || type === 'reasoning-start') {
      gathered.add(part);
    } else if (type === 'text-delta' && typeof delta === 'string') {
      gathered.add(part);
      state.committed = true;
      yield { type: 'text-delta', text: delta };
    } else if (type === 'text-end') {
      // Only a text part that came with metadata needs its own end (and its data back).
      const data = gathered.take(part);
      if (data.providerData !== undefined) yield { type: 'text-end', ...data };
    } else if (type === 'reasoning-delta' && typeof delta === 'string') {
      gathered.add(part);
      state.committed = true;
      if (delta !== '') yield { type: 'reasoning-delta', text: delta };
    } else if (type === 'reasoning-end') {
      yield { type: 'reasoning-end', ...gathered.take(part) };
    } else if (type === 'tool-call') {
      state.committed = true;
      const call = {
        id: String(part['toolCallId']),
        name: String(part['toolName']),
        arguments: argumentsText(part['input']),
        ...callMetadata(part),
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
