import { type EventSourceMessage } from 'eventsource-parser';
import {
  type JsonValue,
  type ModelEvent,
  type ModelToolCall,
  type Usage,
} from '../../chat-model.ts';
import { parseFrame } from '../../http-model-stream.ts';
import { type CommitState } from '../../retry-before-first-chunk.ts';
import { ModelError } from '../../model-error.ts';
import { mapOpenAIFinishReason } from './map-openai-finish-reason.ts';

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
  extraContent: JsonValue | undefined;
}

interface Chunk {
  id?: unknown;
  model?: unknown;
  error?: { message?: unknown; code?: unknown; type?: unknown };
  usage?: {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    completion_tokens_details?: { reasoning_tokens?: unknown } | null;
  } | null;
  choices?: {
    delta?: {
      content?: unknown;
      reasoning_content?: unknown;
      reasoning?: unknown;
      tool_calls?: {
        index?: unknown;
        id?: unknown;
        function?: { name?: unknown; arguments?: unknown };
        extra_content?: JsonValue;
      }[];
    };
    finish_reason?: unknown;
  }[];
}

/** Where a server streams its reasoning: DeepSeek and vLLM `reasoning_content`, others `reasoning`. */
export type ReasoningField = 'reasoning_content' | 'reasoning';

/**
 * Chat Completions SSE as model events. Tool-call fragments are assembled by index and emitted
 * only after `[DONE]`; a stream without `[DONE]` is incomplete. Reasoning a server streams as
 * `reasoning_content` or `reasoning` becomes a reasoning part that remembers its field
 * (`providerData.openaiCompatible.field`); a tool call's `extra_content` (Gemini's
 * OpenAI-compatible endpoint puts its thought signature there) is kept verbatim in
 * `providerData.openaiCompatible.extraContent`.
 */
export async function* parseOpenAIStream(
  messages: AsyncIterable<EventSourceMessage>,
  state: CommitState,
): AsyncGenerator<ModelEvent, void, undefined> {
  const calls = new Map<number, PartialCall>();
  let reason: unknown;
  let usage: Usage | undefined;
  let id: string | undefined;
  let model: string | undefined;
  let reasoning: ReasoningField | undefined;
  let done = false;
  for await (const message of messages) {
    if (message.data === '[DONE]') {
      done = true;
      break;
    }
    const chunk = parseFrame(message.data) as Chunk;
    if (message.event === 'error' || chunk.error !== undefined) {
      const text =
        typeof chunk.error?.message === 'string'
          ? chunk.error.message
          : 'unknown error';
      const code = chunk.error?.code ?? chunk.error?.type;
      throw new ModelError({
        kind: 'stream',
        ...(typeof code === 'string' ? { code } : {}),
        ...(typeof code === 'number' ? { status: code } : {}),
        message: `The model stream reported an error: ${text}`,
      });
    }
    if (typeof chunk.id === 'string' && chunk.id !== '') id = chunk.id;
    if (typeof chunk.model === 'string' && chunk.model !== '')
      model = chunk.model;
    if (chunk.usage) {
      const thought = chunk.usage.completion_tokens_details?.reasoning_tokens;
      usage = {
        inputTokens: Number(chunk.usage.prompt_tokens ?? 0),
        outputTokens: Number(chunk.usage.completion_tokens ?? 0),
        ...(typeof thought === 'number' ? { reasoningTokens: thought } : {}),
      };
    }
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta;
      for (const field of ['reasoning_content', 'reasoning'] as const) {
        const thought = delta?.[field];
        if (typeof thought === 'string' && thought !== '') {
          state.committed = true;
          reasoning = field;
          yield { type: 'reasoning-delta', text: thought };
        }
      }
      const content = delta?.content;
      if (typeof content === 'string' && content !== '') {
        if (reasoning !== undefined) {
          yield reasoningEnd(reasoning);
          reasoning = undefined;
        }
        state.committed = true;
        yield { type: 'text-delta', text: content };
      }
      for (const fragment of choice.delta?.tool_calls ?? []) {
        state.committed = true;
        const index = typeof fragment.index === 'number' ? fragment.index : 0;
        const call = calls.get(index) ?? {
          id: '',
          name: '',
          arguments: '',
          extraContent: undefined,
        };
        if (fragment.extra_content !== undefined)
          call.extraContent = fragment.extra_content;
        if (typeof fragment.id === 'string' && fragment.id !== '')
          call.id = fragment.id;
        if (typeof fragment.function?.name === 'string' && call.name === '')
          call.name = fragment.function.name;
        if (typeof fragment.function?.arguments === 'string')
          call.arguments += fragment.function.arguments;
        calls.set(index, call);
      }
      if (choice.finish_reason !== null && choice.finish_reason !== undefined)
        reason = choice.finish_reason;
    }
  }
  if (!done) {
    throw new ModelError({
      kind: 'incomplete',
      message:
        'The model stream ended without [DONE]: the answer is incomplete.',
    });
  }
  if (reasoning !== undefined) yield reasoningEnd(reasoning);
  const ordered: ModelToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, { extraContent, ...call }]) =>
      extraContent === undefined
        ? call
        : { ...call, providerData: { openaiCompatible: { extraContent } } },
    );
  for (const call of ordered) {
    if (call.id === '' || call.name === '') {
      throw new ModelError({
        kind: 'malformed',
        message: 'The model sent a tool call without an id or a name.',
      });
    }
  }
  for (const call of ordered) yield { type: 'tool-call', call };
  yield {
    type: 'finish',
    finishReason: mapOpenAIFinishReason(reason, ordered.length > 0),
    ...(usage === undefined ? {} : { usage }),
    ...(id === undefined && model === undefined
      ? {}
      : {
          response: {
            ...(id === undefined ? {} : { id }),
            ...(model === undefined ? {} : { model }),
          },
        }),
  };
}

function reasoningEnd(field: ReasoningField): ModelEvent {
  return {
    type: 'reasoning-end',
    providerData: { openaiCompatible: { field } },
  };
}
