import {
  type AttemptFailure,
  type CallSettings,
  type ChatModel,
  checkCallSettings,
  contentPartEvents,
  type ContentStreamPart,
  mergeCallSettings,
  ModelError,
  type RetryOptions,
  retryBeforeFirstChunk,
  retryPolicy,
} from '@candor/core';
import { APICallError, type LanguageModel } from 'ai';
import { toLanguageModelPrompt } from './to-language-model-prompt.ts';

/**
 * Options of {@link fromLanguageModel}: Candor's retry rule, and the model's call settings
 * (`temperature`, `topP`, `maxOutputTokens`, `stopSequences`, `seed`, and `providerOptions`,
 * keyed by AI SDK provider as in `generateText`: `{ google: { thinkingConfig: … } }`). A run's
 * `settings` are laid over them key by key; both reach `doStream` under the same names.
 */
export interface FromLanguageModelOptions extends CallSettings {
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
 * retried only before the first chunk arrived. Usage (reasoning tokens too) and the response's id
 * and model are reported on `finish`. What the model streams with its reasoning and tool calls
 * (`providerMetadata`: Gemini's `thoughtSignature`, Anthropic's reasoning signature) is kept in
 * the conversation as `providerData.aiSdk` and goes back as the parts' `providerOptions` on the
 * next request, as the SDK's own loop sends it, so a saved conversation resumes with it too.
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
  const { retry: retryOptions, ...rest } = options;
  const retry = retryPolicy(retryOptions);
  const modelSettings = checkCallSettings(rest, 'fromLanguageModel');
  return {
    provider: spec.provider,
    model: spec.modelId,
    stream: ({ instructions, messages, tools, settings, signal, onRetry }) =>
      retryBeforeFirstChunk({
        retry,
        signal,
        onRetry,
        async *attempt(state) {
          const { stream } = await spec.doStream({
            // The settings' names are the SDK's call options' names.
            ...mergeCallSettings(modelSettings, settings),
            prompt: toLanguageModelPrompt(instructions, messages),
            tools: tools.map((tool) => ({ type: 'function', ...tool })),
            ...(signal === undefined ? {} : { abortSignal: signal }),
          });
          yield* contentPartEvents(stream, state);
        },
        failure,
      }),
  };
}
