import {
  type CallSettings,
  type ChatModel,
  type ChatRequest,
  type ModelEvent,
} from '../../chat-model.ts';
import { httpModelStream } from '../../http-model-stream.ts';
import { type RetryOptions, retryPolicy } from '../../retry-policy.ts';
import {
  modelSettings,
  requestSettings,
  withProviderOptions,
} from '../wire-settings.ts';
import { convertToOpenAIMessages } from './convert-to-openai-messages.ts';
import { parseOpenAIStream } from './parse-openai-stream.ts';
import { prepareOpenAITools } from './prepare-openai-tools.ts';

/**
 * Options of {@link openaiCompatible}. The call settings (`temperature`, `topP`,
 * `maxOutputTokens`, `stopSequences`, `seed`, `providerOptions.openaiCompatible`) apply to every
 * request of this model; a run's `settings` win key by key.
 */
export interface OpenAICompatibleOptions extends RetryOptions, CallSettings {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` for Ollama. */
  readonly baseURL: string;
  /** Required for api.openai.com; local servers often need none. */
  readonly apiKey?: string;
  readonly model: string;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The field `maxOutputTokens` is sent as. Default: `max_completion_tokens` for api.openai.com
   * (where `max_tokens` is deprecated and refused by reasoning models), `max_tokens` elsewhere
   * (what Ollama, vLLM and llama.cpp read).
   */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

function openAIErrorMessage(body: unknown): string | undefined {
  const message = (body as { error?: { message?: unknown } } | null)?.error
    ?.message;
  return typeof message === 'string' ? message : undefined;
}

function openAIErrorCode(body: unknown): string | undefined {
  const error = (body as { error?: { code?: unknown; type?: unknown } } | null)
    ?.error;
  const code = error?.code ?? error?.type;
  return typeof code === 'string' ? code : undefined;
}

/** The Chat Completions request fields of the call settings. */
function settingsFields(
  settings: CallSettings,
  maxTokensField: string,
): Record<string, unknown> {
  return {
    ...(settings.temperature === undefined
      ? {}
      : { temperature: settings.temperature }),
    ...(settings.topP === undefined ? {} : { top_p: settings.topP }),
    ...(settings.maxOutputTokens === undefined
      ? {}
      : { [maxTokensField]: settings.maxOutputTokens }),
    ...(settings.stopSequences === undefined
      ? {}
      : { stop: settings.stopSequences }),
    ...(settings.seed === undefined ? {} : { seed: settings.seed }),
  };
}

/**
 * A Chat Completions model: OpenAI, Ollama, vLLM, llama.cpp and other compatible servers. It
 * streams with `fetch`, parses SSE with eventsource-parser and assembles tool calls by index.
 *
 * @example
 * ```ts
 * const model = openaiCompatible({ baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, model: 'gpt-4o-mini' });
 * ```
 */
export function openaiCompatible(options: OpenAICompatibleOptions): ChatModel {
  let base: URL;
  try {
    base = new URL(options.baseURL);
  } catch {
    throw new TypeError(
      `openaiCompatible: baseURL must be an absolute URL, got ${JSON.stringify(options.baseURL)}`,
    );
  }
  if (typeof options.model !== 'string' || options.model === '') {
    throw new TypeError('openaiCompatible: model is required');
  }
  // A blank key is as missing as none ("OPENAI_API_KEY= " in a .env file); a fully qualified
  // host name may end in a dot.
  const apiKey =
    options.apiKey === undefined || options.apiKey.trim() === ''
      ? undefined
      : options.apiKey;
  if (
    base.hostname.replace(/\.$/, '') === 'api.openai.com' &&
    apiKey === undefined
  ) {
    throw new TypeError(
      'openaiCompatible: an apiKey is required for api.openai.com (set OPENAI_API_KEY)',
    );
  }
  const settings = modelSettings('openaiCompatible', options);
  const maxTokensField: string =
    options.maxTokensField ??
    (base.hostname.replace(/\.$/, '').toLowerCase() === 'api.openai.com'
      ? 'max_completion_tokens'
      : 'max_tokens');
  if (
    maxTokensField !== 'max_tokens' &&
    maxTokensField !== 'max_completion_tokens'
  )
    throw new TypeError(
      `openaiCompatible: maxTokensField must be 'max_tokens' or 'max_completion_tokens', got ${JSON.stringify(maxTokensField)}`,
    );
  const retry = retryPolicy(options);
  const url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const headers = {
    ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
    ...options.headers,
  };
  return {
    // The GenAI registry's name: OpenAI-compatible servers are reported as `openai`
    // (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/).
    provider: 'openai',
    model: options.model,
    stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      const merged = requestSettings(settings, request);
      return httpModelStream({
        provider: 'openai-compatible',
        url,
        headers,
        retry,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(request.onRetry === undefined ? {} : { onRetry: request.onRetry }),
        body: withProviderOptions(
          {
            model: options.model,
            ...settingsFields(merged, maxTokensField),
            messages: convertToOpenAIMessages(request),
            ...prepareOpenAITools(request.tools),
            stream: true,
            stream_options: { include_usage: true },
          },
          merged,
          'openaiCompatible',
        ),
        parse: parseOpenAIStream,
        errorMessage: openAIErrorMessage,
        errorCode: openAIErrorCode,
      });
    },
  };
}
