import { retryAfterMsFrom } from '@candor/errors';
import { scrubSecrets } from '@candor/tools';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { type ChatRequest, type ModelEvent } from './chat-model.ts';
import { ModelError } from './model-error.ts';
import {
  type AttemptFailure,
  type CommitState,
  retryBeforeFirstChunk,
} from './retry-before-first-chunk.ts';
import { type RetryPolicy, shouldRetryStatus } from './retry-policy.ts';

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
  /** The provider's name for the error in its body (`INVALID_ARGUMENT`, `overloaded_error`). */
  readonly errorCode?: (body: unknown) => string | undefined;
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

async function httpFailure(
  stream: HttpModelStream,
  response: Response,
): Promise<HttpFailure> {
  let text = '';
  try {
    text = await response.text();
  } catch {
    // The body is best effort; the status alone is still an answer.
  }
  let detail: string | undefined;
  let askedMs: number | undefined;
  let code: string | undefined;
  try {
    const body: unknown = JSON.parse(text);
    detail = stream.errorMessage(body);
    askedMs = stream.retryDelayMs?.(body);
    code = stream.errorCode?.(body);
  } catch {
    detail = text.trim() === '' ? undefined : text.trim().slice(0, 500);
  }
  return new HttpFailure(response, { detail, askedMs, code });
}

function asModelError(error: unknown, attempts: number): ModelError {
  if (error instanceof ModelError) {
    return new ModelError({
      kind: error.kind,
      message: error.message,
      attempts,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.code === undefined ? {} : { code: error.code }),
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

/** A request body JSON cannot carry: final, never retried. */
class UnwritableRequest extends Error {
  readonly error: ModelError;
  constructor(options: ConstructorParameters<typeof ModelError>[0]) {
    super(options.message);
    this.error = new ModelError(options);
  }
}

function requestJson(stream: HttpModelStream): string {
  try {
    return JSON.stringify(stream.body);
  } catch (error: unknown) {
    throw new UnwritableRequest({
      kind: 'malformed',
      message: `The ${stream.provider} request could not be written as JSON (a value in the history, its providerData or the settings that JSON cannot carry): ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
}

/** An HTTP answer that was not 2xx, read for the retry loop. */
class HttpFailure extends Error {
  readonly response: Response;
  readonly detail: string | undefined;
  readonly askedMs: number | undefined;
  readonly code: string | undefined;
  constructor(
    response: Response,
    read: {
      detail: string | undefined;
      askedMs: number | undefined;
      code: string | undefined;
    },
  ) {
    super(`HTTP ${String(response.status)}`);
    this.response = response;
    this.detail = read.detail;
    this.askedMs = read.askedMs;
    this.code = read.code;
  }
}

/** A connection that failed before any response: the loop reports its own error. */
class FetchFailure extends Error {
  constructor(cause: unknown) {
    super('fetch failed', { cause });
  }
}

function classify(
  stream: HttpModelStream,
  thrown: unknown,
  attempts: number,
): AttemptFailure {
  if (thrown instanceof FetchFailure) {
    return {
      error: asModelError(thrown.cause, attempts),
      retryable: true,
      reported: thrown.cause,
    };
  }
  if (thrown instanceof UnwritableRequest)
    return { error: asModelError(thrown.error, attempts), retryable: false };
  if (!(thrown instanceof HttpFailure))
    return { error: asModelError(thrown, attempts), retryable: true };
  const { response, detail, askedMs, code } = thrown;
  const headers = response.headers;
  return {
    error: new ModelError({
      kind: 'http',
      status: response.status,
      ...(code === undefined ? {} : { code }),
      attempts,
      message: `${stream.provider} answered HTTP ${response.status}${detail === undefined ? '' : `: ${detail}`}`,
    }),
    retryable: shouldRetryStatus(response.status, headers),
    headers,
    // A wait asked in the body counts only when the headers ask for none.
    ...(askedMs === undefined || retryAfterMsFrom(headers) !== undefined
      ? {}
      : { askedMs }),
  };
}

/**
 * The failure with every header value we sent (the API key above all) replaced by
 * `[REDACTED]` in its message: a server may quote the key back in its error body, and fetch
 * quotes a header value it refuses. The cause quoting it is dropped for the same reason.
 */
function withoutHeaderValues(
  stream: HttpModelStream,
  failure: AttemptFailure,
): AttemptFailure {
  const values = Object.values(stream.headers).flatMap((value) => [
    value,
    value.replace(/^bearer\s+/i, ''),
  ]);
  const secrets = values.filter((value) => value.trim().length >= 8);
  const { error } = failure;
  if (!secrets.some((secret) => error.message.includes(secret))) return failure;
  // `reported` (the connection's own error) quotes the value too: onRetry gets the clean error.
  return {
    error: new ModelError({
      kind: error.kind,
      message: scrubSecrets(error.message, secrets),
      attempts: error.attempts,
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.code === undefined ? {} : { code: error.code }),
    }),
    retryable: failure.retryable,
    ...(failure.headers === undefined ? {} : { headers: failure.headers }),
    ...(failure.askedMs === undefined ? {} : { askedMs: failure.askedMs }),
  };
}

/**
 * Streams one model request with retries ({@link retryBeforeFirstChunk}): a failure is final
 * once a delta with text or tool-call content arrived.
 */
export function httpModelStream(
  stream: HttpModelStream,
): AsyncGenerator<ModelEvent, void, undefined> {
  const { signal } = stream;
  // Written once, before any attempt: a value JSON cannot carry (a BigInt or a cycle in a
  // hand-built history) is the request's fault, never a connection failure to retry.
  let payload: string | undefined;
  return retryBeforeFirstChunk({
    retry: stream.retry,
    signal,
    onRetry: stream.onRetry,
    async *attempt(state) {
      payload ??= requestJson(stream);
      let response: Response;
      try {
        response = await fetch(stream.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...stream.headers },
          body: payload,
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (error: unknown) {
        throw new FetchFailure(error);
      }
      if (!response.ok) throw await httpFailure(stream, response);
      yield* stream.parse(sseMessages(response), state);
    },
    failure: (error, attempts) =>
      withoutHeaderValues(stream, classify(stream, error, attempts)),
  });
}
