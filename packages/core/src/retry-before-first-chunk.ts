import { type ChatRequest, type ModelEvent } from './chat-model.ts';
import { ModelError } from './model-error.ts';
import { retryDelayMs, type RetryPolicy } from './retry-policy.ts';

/** Set by an attempt on the first event carrying text or tool-call content. */
export interface CommitState {
  committed: boolean;
}

/** What {@link retryBeforeFirstChunk} is told about one failed attempt. */
export interface AttemptFailure {
  /** The error the request fails with when this failure is final. */
  readonly error: ModelError;
  /** Whether another attempt may succeed; even then, nothing is retried after the first chunk. */
  readonly retryable: boolean;
  /** The server's `retry-after` and `x-should-retry`, when it answered. */
  readonly headers?: Headers;
  /** A wait the server asked for outside its headers (Gemini's `RetryInfo`); capped like any. */
  readonly askedMs?: number;
  /** What `onRetry` is told, when it should not be `error` (a connection's own error). */
  readonly reported?: unknown;
}

/** One model request as {@link retryBeforeFirstChunk} repeats it. */
export interface RetryingRequest {
  readonly retry: RetryPolicy;
  readonly signal?: AbortSignal | undefined;
  /** Told before each retry, with the failure and the wait. */
  readonly onRetry?: ChatRequest['onRetry'] | undefined;
  /** One attempt; it sets `state.committed` as soon as it yields content. */
  attempt(state: CommitState): AsyncIterable<ModelEvent>;
  /** What the attempt threw, classified; `attempts` counts this one. */
  failure(error: unknown, attempts: number): AttemptFailure;
}

/** The error of a request the caller aborted, whatever the attempt was doing. */
export function abortedError(attempts: number, cause?: unknown): ModelError {
  return new ModelError({
    kind: 'aborted',
    message: 'The model request was aborted by the caller.',
    attempts,
    cause,
  });
}

/**
 * Candor's retry rule, for every wire and adapter: a failed attempt is retried only while nothing
 * has been yielded, because once a delta with text or tool-call content arrived it may already be
 * shown to a user or be half of a tool call. The wait is the server's, capped, or backoff.
 */
export async function* retryBeforeFirstChunk(
  request: RetryingRequest,
): AsyncGenerator<ModelEvent, void, undefined> {
  const { retry, signal } = request;
  for (let attempt = 0; ; attempt++) {
    const state: CommitState = { committed: false };
    const attempts = attempt + 1;
    try {
      yield* request.attempt(state);
      return;
    } catch (error: unknown) {
      if (signal?.aborted === true) throw abortedError(attempts, error);
      const failure = request.failure(error, attempts);
      if (state.committed || attempt >= retry.maxRetries || !failure.retryable)
        throw failure.error;
      const ms =
        failure.askedMs === undefined
          ? retryDelayMs(retry, attempt, failure.headers)
          : Math.min(failure.askedMs, retry.maxRetryDelayMs);
      try {
        request.onRetry?.({
          attempt: attempts,
          error: 'reported' in failure ? failure.reported : failure.error,
          delayMs: ms,
        });
      } catch {
        // An observer's bug never changes the request.
      }
      try {
        await retry.sleep(ms, signal);
      } catch (cause: unknown) {
        throw abortedError(attempts, cause);
      }
    }
  }
}
