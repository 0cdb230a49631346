import {
  type AttemptFailure,
  type ChatModel,
  contentPartEvents,
  type ContentStreamPart,
  ModelError,
  type RetryOptions,
  retryBeforeFirstChunk,
  retryPolicy,
  toContentParts,
} from '@candor/core';
import { APICallError, type LanguageModel } from 'ai';

/** Options of {@link fromLanguageModel}. */
export interface FromLanguageModelOptions {
  /** Candor's retry rule: retries happen only before the first chunk. Default 2 retries. */
  readonly retry?: RetryOptions;
}

interface SpecModel {
  readonly provider: string;
  readonly modelId: string;
  doStream(
    options: unknown,
  ): PromiseLike<{ stream: ReadableStream<ContentStreamPart> }>;
}

// Only the SDK's own verdict makes a failure retryable; an HTTP status makes it an `http` error.
function failure(error: unknown, attempts: number): AttemptFailure {
  if (error instanceof ModelError) return { error, retryable: false };
  const api = APICallError.isInstance(error) ? error : undefined;
  const status = api?.statusCode;
  return {
    error: new ModelError({
      kind: status === undefined ? 'network' : 'http',
      ...(status === undefined ? {} : { status }),
      message: error instanceof Error ? error.message : String(error),
      attempts,
      cause: error,
    }),
    retryable: api?.isRetryable === true,
    ...(api === undefined
      ? {}
      : { headers: new Headers(api.responseHeaders ?? {}) }),
  };
}

/**
 * Any AI SDK language model (a provider's model object, such as `openai('gpt-4o')` or
 * `google('gemini-2.5-flash')`) as a Candor `ChatModel`. It calls the model's `doStream` directly,
 * so the SDK's own retries are off on this path and Candor's rule applies: a failed request is
 * retried only before the first chunk arrived. Usage is reported on `finish`.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model: fromLanguageModel(openai('gpt-4o-mini')), registry });
 * ```
 */
export function fromLanguageModel(
  model: Exclude<LanguageModel, string>,
  options: FromLanguageModelOptions = {},
): ChatModel {
  const given: unknown = model;
  if (typeof (given as Partial<SpecModel> | null)?.doStream !== 'function') {
    throw new TypeError(
      'fromLanguageModel: pass an AI SDK model object (e.g. openai("gpt-4o-mini")); a model id string needs the gateway provider',
    );
  }
  const spec = given as SpecModel;
  const retry = retryPolicy(options.retry);
  return {
    provider: spec.provider,
    model: spec.modelId,
    stream: ({ instructions, messages, tools, signal, onRetry }) =>
      retryBeforeFirstChunk({
        retry,
        signal,
        onRetry,
        async *attempt(state) {
          const system =
            instructions === undefined
              ? []
              : [{ role: 'system', content: instructions }];
          const { stream } = await spec.doStream({
            prompt: [...system, ...messages.map(toContentParts)],
            tools: tools.map((tool) => ({ type: 'function', ...tool })),
            ...(signal === undefined ? {} : { abortSignal: signal }),
          });
          yield* contentPartEvents(stream, state);
        },
        failure,
      }),
  };
}
