import {
  type ChatModel,
  type ChatRequest,
  type ModelEvent,
} from '../../chat-model.ts';
import { httpModelStream } from '../../http-model-stream.ts';
import { type RetryOptions, retryPolicy } from '../../retry-policy.ts';
import {
  hostedWireOptions,
  vendorErrorMessage,
} from '../hosted-wire-options.ts';
import { convertToAnthropicMessage } from './convert-to-anthropic-messages.ts';
import { parseAnthropicStream } from './parse-anthropic-stream.ts';
import { prepareAnthropicTools } from './prepare-anthropic-tools.ts';

/** Options of {@link anthropic}. */
export interface AnthropicOptions extends RetryOptions {
  /** Defaults to the ANTHROPIC_API_KEY environment variable; required one way or the other. */
  readonly apiKey?: string;
  readonly model: string;
  /** Defaults to https://api.anthropic.com. */
  readonly baseURL?: string;
  /** Default 4096. */
  readonly maxTokens?: number;
}

/**
 * An Anthropic Messages model, streaming with `fetch` and eventsource-parser. Failed tool calls
 * go back as `tool_result` blocks with `is_error: true`; denials do not carry the flag.
 *
 * @example
 * ```ts
 * const model = anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, model: 'claude-sonnet-4-5' });
 * ```
 */
export function anthropic(options: AnthropicOptions): ChatModel {
  const { apiKey, baseURL } = hostedWireOptions('anthropic', options, {
    apiKeyVariable: 'ANTHROPIC_API_KEY',
    baseURL: 'https://api.anthropic.com',
  });
  const maxTokens = options.maxTokens ?? 4096;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new RangeError(
      `anthropic: maxTokens must be a positive integer, got ${String(maxTokens)}`,
    );
  }
  const retry = retryPolicy(options);
  const url = baseURL.endsWith('/v1')
    ? `${baseURL}/messages`
    : `${baseURL}/v1/messages`;
  return {
    provider: 'anthropic',
    model: options.model,
    stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      return httpModelStream({
        provider: 'anthropic',
        url,
        headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
        retry,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(request.onRetry === undefined ? {} : { onRetry: request.onRetry }),
        body: {
          model: options.model,
          max_tokens: maxTokens,
          ...(request.instructions === undefined
            ? {}
            : { system: request.instructions }),
          messages: request.messages.map(convertToAnthropicMessage),
          ...prepareAnthropicTools(request.tools),
          stream: true,
        },
        parse: parseAnthropicStream,
        errorMessage: (body) => vendorErrorMessage(body, 'type'),
      });
    },
  };
}
