import { type EventSourceMessage } from 'eventsource-parser';
import {
  type FinishReason,
  type ModelEvent,
  type ModelToolCall,
  type Usage,
} from '../../chat-model.ts';
import { parseFrame } from '../../http-model-stream.ts';
import { type CommitState } from '../../retry-before-first-chunk.ts';
import { ModelError } from '../../model-error.ts';
import { SYNTHETIC_CALL_ID_PREFIX } from './convert-to-gemini-contents.ts';
import { mapGeminiFinishReason } from './map-gemini-finish-reason.ts';

interface Part {
  text?: unknown;
  thought?: unknown;
  functionCall?: { id?: unknown; name?: unknown; args?: unknown };
}

interface Chunk {
  error?: { status?: unknown; message?: unknown };
  candidates?: {
    content?: { parts?: Part[] };
    finishReason?: unknown;
  }[];
  promptFeedback?: { blockReason?: unknown };
  usageMetadata?: {
    promptTokenCount?: unknown;
    candidatesTokenCount?: unknown;
  };
}

/** Makes up call ids where Gemini sends none; unique within one model, across its requests. */
export interface CallIdSource {
  next(): string;
}

/** A counter-based {@link CallIdSource}: `candor-gemini-call-1`, `-2`, … */
export function callIdSource(): CallIdSource {
  let count = 0;
  return { next: () => `${SYNTHETIC_CALL_ID_PREFIX}${String(++count)}` };
}

/**
 * Gemini `streamGenerateContent?alt=sse` as model events. Each frame is a whole
 * `GenerateContentResponse`; function calls arrive whole and are emitted after the frame that
 * carries the `finishReason`. Gemini has no `[DONE]`: a stream that ends before a finish reason
 * (or a prompt block) is incomplete. Source: https://ai.google.dev/api/generate-content
 */
export function parseGeminiStream(ids: CallIdSource) {
  return async function* parse(
    messages: AsyncIterable<EventSourceMessage>,
    state: CommitState,
  ): AsyncGenerator<ModelEvent, void, undefined> {
    const calls: ModelToolCall[] = [];
    let reason: unknown;
    let blocked = false;
    let usage: Usage | undefined;
    for await (const message of messages) {
      const chunk = parseFrame(message.data) as Chunk;
      if (chunk.error !== undefined) {
        const status =
          typeof chunk.error.status === 'string' ? chunk.error.status : 'error';
        const text =
          typeof chunk.error.message === 'string'
            ? chunk.error.message
            : 'unknown error';
        throw new ModelError({
          kind: 'stream',
          message: `The model stream reported ${status}: ${text}`,
        });
      }
      if (chunk.usageMetadata !== undefined) {
        usage = {
          inputTokens: Number(chunk.usageMetadata.promptTokenCount ?? 0),
          outputTokens: Number(chunk.usageMetadata.candidatesTokenCount ?? 0),
        };
      }
      // A blocked prompt comes back with no candidates and a block reason.
      if (chunk.promptFeedback?.blockReason !== undefined) blocked = true;
      const candidate = chunk.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        // Thought summaries are not the answer; they are never shown as text.
        if (
          typeof part.text === 'string' &&
          part.text !== '' &&
          part.thought !== true
        ) {
          state.committed = true;
          yield { type: 'text-delta', text: part.text };
        }
        if (part.functionCall !== undefined) {
          state.committed = true;
          const { id, name, args } = part.functionCall;
          if (typeof name !== 'string' || name === '') {
            throw new ModelError({
              kind: 'malformed',
              message: 'The model sent a function call without a name.',
            });
          }
          calls.push({
            id: typeof id === 'string' && id !== '' ? id : ids.next(),
            name,
            arguments: JSON.stringify(args ?? {}),
          });
        }
      }
      if (
        candidate?.finishReason !== undefined &&
        candidate.finishReason !== null
      )
        reason = candidate.finishReason;
    }
    if (reason === undefined && !blocked) {
      throw new ModelError({
        kind: 'incomplete',
        message:
          'The model stream ended without a finishReason: the answer is incomplete.',
      });
    }
    const finishReason: FinishReason = blocked
      ? 'content_filter'
      : mapGeminiFinishReason(reason, calls.length > 0);
    // A safety stop never runs the calls that came before it.
    if (finishReason !== 'content_filter')
      for (const call of calls) yield { type: 'tool-call', call };
    yield {
      type: 'finish',
      finishReason,
      ...(usage === undefined ? {} : { usage }),
    };
  };
}
