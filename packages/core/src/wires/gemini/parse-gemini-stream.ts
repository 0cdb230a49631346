import { type EventSourceMessage } from 'eventsource-parser';
import {
  type FinishReason,
  type ModelEvent,
  type ModelToolCall,
  type ProviderData,
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
  thoughtSignature?: unknown;
  functionCall?: { id?: unknown; name?: unknown; args?: unknown };
}

interface Chunk {
  error?: { code?: unknown; status?: unknown; message?: unknown };
  candidates?: {
    content?: { parts?: Part[] };
    finishReason?: unknown;
  }[];
  promptFeedback?: { blockReason?: unknown };
  usageMetadata?: {
    promptTokenCount?: unknown;
    candidatesTokenCount?: unknown;
    thoughtsTokenCount?: unknown;
  };
  responseId?: unknown;
  modelVersion?: unknown;
}

/** A part's thought signature as provider data, or nothing. */
function signed(part: Part): { providerData?: ProviderData } {
  return typeof part.thoughtSignature === 'string' &&
    part.thoughtSignature !== ''
    ? { providerData: { google: { thoughtSignature: part.thoughtSignature } } }
    : {};
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
 *
 * Thought parts (`thought: true`) are reasoning, never text. A part's `thoughtSignature` stays
 * on that part (`providerData.google.thoughtSignature`): on a function call, on the text it
 * closes (a text answer's signature comes on a last, empty text part), or on a thought, so the
 * next request can send each back where it came:
 * https://ai.google.dev/gemini-api/docs/thought-signatures. `thoughtsTokenCount` is billed as
 * output and is not in `candidatesTokenCount`: it is added, and reported as `reasoningTokens`.
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
    let id: string | undefined;
    let model: string | undefined;
    // The kind of part open now: thoughts close with their own end event.
    let thinking = false;
    for await (const message of messages) {
      const chunk = parseFrame(message.data) as Chunk;
      if (chunk.error !== undefined) throw streamError(chunk.error);
      if (chunk.usageMetadata !== undefined) usage = readUsage(chunk);
      if (typeof chunk.responseId === 'string') id = chunk.responseId;
      if (typeof chunk.modelVersion === 'string') model = chunk.modelVersion;
      // A blocked prompt comes back with no candidates and a block reason.
      if (chunk.promptFeedback?.blockReason !== undefined) blocked = true;
      const candidate = chunk.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        const text = typeof part.text === 'string' ? part.text : undefined;
        if (part.thought === true) {
          // Thought summaries are not the answer; they are never shown as text.
          thinking = true;
          if (text !== undefined && text !== '') {
            state.committed = true;
            yield { type: 'reasoning-delta', text };
          }
          if (signed(part).providerData !== undefined) {
            thinking = false;
            yield { type: 'reasoning-end', ...ownData(part) };
          }
          continue;
        }
        if (
          thinking &&
          (text !== undefined || part.functionCall !== undefined)
        ) {
          thinking = false;
          yield { type: 'reasoning-end', providerData: { google: {} } };
        }
        if (text !== undefined) {
          if (text !== '') {
            state.committed = true;
            yield { type: 'text-delta', text };
          }
          const data = signed(part);
          if (data.providerData !== undefined)
            yield { type: 'text-end', ...data };
        }
        if (part.functionCall !== undefined) {
          state.committed = true;
          const { id: callId, name, args } = part.functionCall;
          if (typeof name !== 'string' || name === '') {
            throw new ModelError({
              kind: 'malformed',
              message: 'The model sent a function call without a name.',
            });
          }
          calls.push({
            id:
              typeof callId === 'string' && callId !== '' ? callId : ids.next(),
            name,
            arguments: JSON.stringify(args ?? {}),
            ...ownData(part),
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
    if (thinking) yield { type: 'reasoning-end', providerData: { google: {} } };
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
      ...(id === undefined && model === undefined
        ? {}
        : {
            response: {
              ...(id === undefined ? {} : { id }),
              ...(model === undefined ? {} : { model }),
            },
          }),
    };
  };
}

/**
 * A thought's or a call's provider data: its signature when it has one, and always the `google`
 * key, so the Gemini wire knows its own from another provider's when it replays them.
 */
function ownData(part: Part): { providerData: ProviderData } {
  return { providerData: signed(part).providerData ?? { google: {} } };
}

/** Usage: `thoughtsTokenCount` is output the candidates count leaves out. */
function readUsage(chunk: Chunk): Usage {
  const meta = chunk.usageMetadata ?? {};
  const thoughts =
    typeof meta.thoughtsTokenCount === 'number'
      ? meta.thoughtsTokenCount
      : undefined;
  return {
    inputTokens: Number(meta.promptTokenCount ?? 0),
    outputTokens: Number(meta.candidatesTokenCount ?? 0) + (thoughts ?? 0),
    ...(thoughts === undefined ? {} : { reasoningTokens: thoughts }),
  };
}

/**
 * Google's in-stream error frame, `{"error":{"code":503,"message":…,"status":"UNAVAILABLE"}}`
 * (which `@google/genai` raises as an `ApiError` with that status), as a stream error that keeps
 * the HTTP status and Google's status name.
 */
function streamError(error: NonNullable<Chunk['error']>): ModelError {
  const status = typeof error.status === 'string' ? error.status : undefined;
  const text =
    typeof error.message === 'string' ? error.message : 'unknown error';
  return new ModelError({
    kind: 'stream',
    ...(typeof error.code === 'number' ? { status: error.code } : {}),
    ...(status === undefined ? {} : { code: status }),
    message: `The model stream reported ${status ?? 'error'}: ${text}`,
  });
}
