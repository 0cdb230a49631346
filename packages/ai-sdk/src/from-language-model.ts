import {
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type FinishReason,
  ModelError,
  type ModelEvent,
  type RetryOptions,
  retryDelayMs,
  retryPolicy,
} from '@candor/core';
import { APICallError, type LanguageModel } from 'ai';

/** Options of {@link fromLanguageModel}. */
export interface FromLanguageModelOptions {
  /** Candor's retry rule: retries happen only before the first chunk. Default 2 retries. */
  readonly retry?: RetryOptions;
}

// The few parts of the provider specification (v2, v3) this adapter reads; the stream is read
// field by field, so a part it does not know is skipped rather than misread.
interface StreamPart {
  readonly type: string;
  readonly delta?: unknown;
  readonly toolCallId?: unknown;
  readonly toolName?: unknown;
  readonly input?: unknown;
  readonly finishReason?: unknown;
  readonly usage?: unknown;
  readonly error?: unknown;
}
interface SpecModel {
  readonly provider: string;
  readonly modelId: string;
  doStream(
    options: unknown,
  ): PromiseLike<{ stream: ReadableStream<StreamPart> }>;
}

const finishReasons: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  'tool-calls': 'tool_calls',
  length: 'length',
  'content-filter': 'content_filter',
};

function tokens(value: unknown): number {
  if (typeof value === 'number') return value;
  const total = (value as { total?: unknown } | undefined)?.total;
  return typeof total === 'number' ? total : 0;
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A model's malformed arguments stay as it sent them: the registry already answered them.
    return text;
  }
}

function prompt(request: ChatRequest): unknown[] {
  const system =
    request.instructions === undefined
      ? []
      : [{ role: 'system', content: request.instructions }];
  return [
    ...system,
    ...request.messages.map((message: ChatMessage) => {
      switch (message.role) {
        case 'user':
          return {
            role: 'user',
            content: [{ type: 'text', text: message.content }],
          };
        case 'assistant':
          return {
            role: 'assistant',
            content: [
              ...(message.content === ''
                ? []
                : [{ type: 'text', text: message.content }]),
              ...message.toolCalls.map((call) => ({
                type: 'tool-call',
                toolCallId: call.id,
                toolName: call.name,
                input: parsedArguments(call.arguments),
              })),
            ],
          };
        case 'tool':
          return {
            role: 'tool',
            content: message.results.map((result) => ({
              type: 'tool-result',
              toolCallId: result.callId,
              toolName: result.toolName,
              output: {
                type: result.isError ? 'error-text' : 'text',
                value: result.content,
              },
            })),
          };
      }
    }),
  ];
}

function modelError(error: unknown, attempts: number): ModelError {
  if (error instanceof ModelError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (APICallError.isInstance(error) && error.statusCode !== undefined) {
    return new ModelError({
      kind: 'http',
      status: error.statusCode,
      message,
      attempts,
      cause: error,
    });
  }
  return new ModelError({ kind: 'network', message, attempts, cause: error });
}

function aborted(attempts: number, cause: unknown): ModelError {
  return new ModelError({
    kind: 'aborted',
    message: 'The model request was aborted by the caller.',
    attempts,
    cause,
  });
}

function retryable(error: unknown): boolean {
  return APICallError.isInstance(error) && error.isRetryable;
}

async function* events(
  stream: ReadableStream<StreamPart>,
  state: { committed: boolean },
): AsyncGenerator<ModelEvent, void, undefined> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      if (part.type === 'text-delta' && typeof part.delta === 'string') {
        state.committed = true;
        yield { type: 'text-delta', text: part.delta };
      } else if (part.type === 'tool-call') {
        state.committed = true;
        const input = part.input;
        yield {
          type: 'tool-call',
          call: {
            id: String(part.toolCallId),
            name: String(part.toolName),
            arguments:
              typeof input === 'string' ? input : JSON.stringify(input ?? {}),
          },
        };
      } else if (part.type === 'error') {
        throw part.error;
      } else if (part.type === 'finish') {
        const raw = part.finishReason;
        const unified =
          typeof raw === 'string'
            ? raw
            : (raw as { unified?: unknown } | undefined)?.unified;
        const usage = part.usage as
          { inputTokens?: unknown; outputTokens?: unknown } | undefined;
        yield {
          type: 'finish',
          finishReason: finishReasons[String(unified)] ?? 'other',
          ...(usage === undefined
            ? {}
            : {
                usage: {
                  inputTokens: tokens(usage.inputTokens),
                  outputTokens: tokens(usage.outputTokens),
                },
              }),
        };
        return;
      }
    }
  } finally {
    reader.releaseLock();
  }
  throw new ModelError({
    kind: 'incomplete',
    message: 'The model stream ended without a finish part.',
  });
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
    async *stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      const { signal } = request;
      for (let attempt = 0; ; attempt++) {
        const state = { committed: false };
        try {
          const { stream } = await spec.doStream({
            prompt: prompt(request),
            tools: request.tools.map((tool) => ({ type: 'function', ...tool })),
            ...(signal === undefined ? {} : { abortSignal: signal }),
          });
          yield* events(stream, state);
          return;
        } catch (error: unknown) {
          if (signal?.aborted === true) throw aborted(attempt + 1, error);
          const failure = modelError(error, attempt + 1);
          if (
            state.committed ||
            attempt >= retry.maxRetries ||
            !retryable(error)
          )
            throw failure;
          const headers = APICallError.isInstance(error)
            ? new Headers(error.responseHeaders ?? {})
            : undefined;
          try {
            await retry.sleep(retryDelayMs(retry, attempt, headers), signal);
          } catch (cause: unknown) {
            throw aborted(attempt + 1, cause);
          }
        }
      }
    },
  };
}
