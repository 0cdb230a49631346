import { type EventSourceMessage } from 'eventsource-parser';
import {
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
}

interface Chunk {
  error?: { message?: unknown };
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  choices?: {
    delta?: {
      content?: unknown;
      tool_calls?: {
        index?: unknown;
        id?: unknown;
        function?: { name?: unknown; arguments?: unknown };
      }[];
    };
    finish_reason?: unknown;
  }[];
}

/**
 * Chat Completions SSE as model events. Tool-call fragments are assembled by index and emitted
 * only after `[DONE]`; a stream without `[DONE]` is incomplete.
 */
export async function* parseOpenAIStream(
  messages: AsyncIterable<EventSourceMessage>,
  state: CommitState,
): AsyncGenerator<ModelEvent, void, undefined> {
  const calls = new Map<number, PartialCall>();
  let reason: unknown;
  let usage: Usage | undefined;
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
      throw new ModelError({
        kind: 'stream',
        message: `The model stream reported an error: ${text}`,
      });
    }
    if (chunk.usage) {
      usage = {
        inputTokens: Number(chunk.usage.prompt_tokens ?? 0),
        outputTokens: Number(chunk.usage.completion_tokens ?? 0),
      };
    }
    for (const choice of chunk.choices ?? []) {
      const content = choice.delta?.content;
      if (typeof content === 'string' && content !== '') {
        state.committed = true;
        yield { type: 'text-delta', text: content };
      }
      for (const fragment of choice.delta?.tool_calls ?? []) {
        state.committed = true;
        const index = typeof fragment.index === 'number' ? fragment.index : 0;
        const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
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
  const ordered: ModelToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => call);
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
  };
}
