import { retryAfterMsFrom } from '@candor/errors';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { type ChatRequest, type ModelEvent } from './chat-model.ts';
import { ModelError } from './model-error.ts';
import {
  retryDelayMs,
  type RetryPolicy,
  shouldRetryStatus,
} from './retry-policy.ts';

/** Set by a parser on the first delta carrying text or tool-call content. */
export interface CommitState {
  committed: boolean;
}

/** Everything one provider adapter tells the shared streaming loop. */
export interface HttpModelStream {
  readonly provider: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly retry: RetryPolicy;
  readonly signal?: AbortSignal;
  /** Told before each retry, with the failure and the wait. */
  readonly onRetry?: ChatRequest['onRetry'];
  /** Turns SSE messages into model events; throws a ModelError on in-stream failures. */
  readonly parse: (
    messages: AsyncIterable<EventSourceMessage>,
    state: CommitState,
  ) => AsyncGenerator<ModelEvent, void, undefined>;
  /** The provider's message from an error body, if it has one. */
  readonly errorMessage: (body: unknown) => string | undefined;
  /**
   * The wait an error body asks for, for providers that say it there rather than in a
   * `retry-after` header (Gemini's `RetryInfo`). Headers win; the cap applies either way.
   */
  readonly retryDelayMs?: (body: unknown) => number | undefined;
}

/** Parses one SSE frame's JSON; a broken frame is a `malformed` model error. */
export function parseFrame(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (error: unknown) {
    throw new ModelError({
      kind: 'malformed',
      message: 'The model sent a malformed stream frame (invalid JSON).',
      cause: error,
    });
  }
}

/** SSE messages of a response body, read chunk by chunk. */
async function* sseMessages(
  response: Response,
): AsyncGenerator<EventSourceMessage, void, undefined> {
  const body = response.body;
  if (body === null) return;
  const pending: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (message) => {
      pending.push(message);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) {
      const message = pending.shift();
      if (message !== undefined) yield message;
    }
  }
  parser.feed(decoder.decode());
  yield* pending;
}

async function httpError(
  stream: HttpModelStream,
  response: Response,
  attempts: number,
): Promise<{ error: ModelError; askedMs: number | undefined }> {
  let text = '';
  try {
    text = await response.text();
  } catch {
    // The body is best effort; the status alone is still an answer.
  }
  let detail: string | undefined;
  let askedMs: number | undefined;
  try {
    const body: unknown = JSON.parse(text);
    detail = stream.errorMessage(body);
    askedMs = stream.retryDelayMs?.(body);
  } catch {
    detail = text.trim() === '' ? undefined : text.trim().slice(0, 500);
  }
  const error = new ModelError({
    kind: 'http',
    status: response.status,
    attempts,
    message: `${stream.provider} answered HTTP ${response.status}${detail === undefined ? '' : `: ${detail}`}`,
  });
  return { error, askedMs };
}

function aborted(attempts: number, cause?: unknown): ModelError {
  return new ModelError({
    kind: 'aborted',
    message: 'The model request was aborted by the caller.',
    attempts,
    cause,
  });
}

function asModelError(error: unknown, attempts: number): ModelError {
  if (error instanceof ModelError) {
    return new ModelError({
      kind: error.kind,
      message: error.message,
      attempts,
      ...(error.status === undefined ? {} : { status: error.status }),
      cause: error.cause,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError({
    kind: 'network',
    message: `The connection to the model failed: ${message}`,
    attempts,
    cause: error,
  });
}

/**
 * Streams one model request with retries. A retry happens only while nothing has been yielded:
 * once a delta with text or tool-call content arrived, a failure is final, because a chunk may
 * already be shown to a user or be half of a tool call.
 */
export async function* httpModelStream(
  stream: HttpModelStream,
): AsyncGenerator<ModelEvent, void, undefined> {
  const { retry, signal } = stream;
  for (let attempt = 0; ; attempt++) {
    const state: CommitState = { committed: false };
    const attempts = attempt + 1;
    let response: Response;
    try {
      response = await fetch(stream.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...stream.headers },
        body: JSON.stringify(stream.body),
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error: unknown) {
      if (signal?.aborted === true) throw aborted(attempts, error);
      if (attempt >= retry.maxRetries) throw asModelError(error, attempts);
      await wait(stream, {
        ms: retryDelayMs(retry, attempt),
        attempts,
        error,
      });
      continue;
    }
    if (!response.ok) {
      const { error, askedMs } = await httpError(stream, response, attempts);
      if (
        attempt >= retry.maxRetries ||
        !shouldRetryStatus(response.status, response.headers)
      )
        throw error;
      await wait(stream, {
        error,
        ms:
          askedMs !== undefined &&
          retryAfterMsFrom(response.headers) === undefined
            ? Math.min(askedMs, retry.maxRetryDelayMs)
            : retryDelayMs(retry, attempt, response.headers),
        attempts,
      });
      continue;
    }
    try {
      yield* stream.parse(sseMessages(response), state);
      return;
    } catch (error: unknown) {
      if (signal?.aborted === true) throw aborted(attempts, error);
      const failure = asModelError(error, attempts);
      if (state.committed || attempt >= retry.maxRetries) throw failure;
      await wait(stream, {
        ms: retryDelayMs(retry, attempt),
        attempts,
        error: failure,
      });
    }
  }
}

async function wait(
  stream: HttpModelStream,
  pause: { ms: number; attempts: number; error: unknown },
): Promise<void> {
  const { ms, attempts, error } = pause;
  try {
    stream.onRetry?.({ attempt: attempts, error, delayMs: ms });
  } catch {
    // An observer's bug never changes the request.
  }
  try {
    await stream.retry.sleep(ms, stream.signal);
  } catch (cause: unknown) {
    throw aborted(attempts, cause);
  }
}
