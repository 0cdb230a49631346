import {
  type ChatModel,
  type ChatRequest,
  type ModelEvent,
} from '../../chat-model.ts';
import { httpModelStream } from '../../http-model-stream.ts';
import { type RetryOptions, retryPolicy } from '../../retry-policy.ts';
import { convertToOpenAIMessages } from './convert-to-openai-messages.ts';
import { parseOpenAIStream } from './parse-openai-stream.ts';
import { prepareOpenAITools } from './prepare-openai-tools.ts';

/** Options of {@link openaiCompatible}. */
export interface OpenAICompatibleOptions extends RetryOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` for Ollama. */
  readonly baseURL: string;
  /** Required for api.openai.com; local servers often need none. */
  readonly apiKey?: string;
  readonly model: string;
  readonly headers?: Readonly<Record<string, string>>;
}

function openAIErrorMessage(body: unknown): string | undefined {
  const message = (body as { error?: { message?: unknown } } | null)?.error
    ?.message;
  return typeof message === 'string' ? message : undefined;
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
  const retry = retryPolicy(options);
  const url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const headers = {
    ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
    ...options.headers,
  };
  return {
    provider: 'openai-compatible',
    model: options.model,
    stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      return httpModelStream({
        provider: 'openai-compatible',
        url,
        headers,
        retry,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(request.onRetry === undefined ? {} : { onRetry: request.onRetry }),
        body: {
          model: options.model,
          messages: convertToOpenAIMessages(request),
          ...prepareOpenAITools(request.tools),
          stream: true,
          stream_options: { include_usage: true },
        },
        parse: parseOpenAIStream,
        errorMessage: openAIErrorMessage,
      });
    },
  };
}
