import {
  type CallSettings,
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
import {
  modelSettings,
  requestSettings,
  withProviderOptions,
} from '../wire-settings.ts';
import {
  type AnthropicThinking,
  thinkingRequest,
} from './anthropic-thinking.ts';
import { convertToAnthropicMessage } from './convert-to-anthropic-messages.ts';
import { parseAnthropicStream } from './parse-anthropic-stream.ts';
import { prepareAnthropicTools } from './prepare-anthropic-tools.ts';

/**
 * Options of {@link anthropic}. The call settings (`temperature`, `topP`, `maxOutputTokens`,
 * `stopSequences`, `providerOptions.anthropic`) apply to every request of this model; a run's
 * `settings` win key by key. Anthropic has no `seed`: setting one is refused.
 */
export interface AnthropicOptions extends RetryOptions, CallSettings {
  /** Defaults to the ANTHROPIC_API_KEY environment variable; required one way or the other. */
  readonly apiKey?: string;
  readonly model: string;
  /** Defaults to https://api.anthropic.com. */
  readonly baseURL?: string;
  /** `max_tokens`, default 4096: an alias of `maxOutputTokens`, which wins when both are set. */
  readonly maxTokens?: number;
  /** Extended thinking: `{ type: 'enabled', budgetTokens }` or `{ type: 'adaptive', effort? }`. */
  readonly thinking?: AnthropicThinking;
}

/** The Messages API request fields of the call settings. */
function settingsFields(
  settings: CallSettings,
  maxTokens: number,
): Record<string, unknown> {
  if (settings.seed !== undefined)
    throw new TypeError(
      'anthropic: the Messages API has no seed; leave it out for this model',
    );
  return {
    max_tokens: settings.maxOutputTokens ?? maxTokens,
    ...(settings.temperature === undefined
      ? {}
      : { temperature: settings.temperature }),
    ...(settings.topP === undefined ? {} : { top_p: settings.topP }),
    ...(settings.stopSequences === undefined
      ? {}
      : { stop_sequences: settings.stopSequences }),
  };
}

/**
 * An Anthropic Messages model, streaming with `fetch` and eventsource-parser. Failed tool calls
 * go back as `tool_result` blocks with `is_error: true`; denials do not carry the flag. With
 * `thinking`, each thinking block (its text or an omitted or redacted form, with its signature)
 * is kept in the turn's parts and sent back verbatim, in order, before the tool calls it led to.
 *
 * @example
 * ```ts
 * const model = anthropic({
 *   apiKey: process.env.ANTHROPIC_API_KEY,
 *   model: 'claude-sonnet-4-6',
 *   thinking: { type: 'adaptive', effort: 'medium' },
 *   maxOutputTokens: 16000,
 * });
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
  const settings = modelSettings('anthropic', options);
  // Checked now, so a seed set on the model fails here rather than on the first request.
  settingsFields(settings, maxTokens);
  const thinking = thinkingRequest(options.thinking);
  const retry = retryPolicy(options);
  const url = baseURL.endsWith('/v1')
    ? `${baseURL}/messages`
    : `${baseURL}/v1/messages`;
  const headers: Record<string, string> = {
    'x-api-key': apiKey,
    'anthropic-version': '2023-06-01',
    ...(thinking.betas.length === 0
      ? {}
      : { 'anthropic-beta': thinking.betas.join(',') }),
  };
  return {
    provider: 'anthropic',
    model: options.model,
    stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      const merged = requestSettings(settings, request);
      return httpModelStream({
        provider: 'anthropic',
        url,
        headers,
        retry,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(request.onRetry === undefined ? {} : { onRetry: request.onRetry }),
        body: withProviderOptions(
          {
            model: options.model,
            ...settingsFields(merged, maxTokens),
            ...thinking.body,
            ...(request.instructions === undefined
              ? {}
              : { system: request.instructions }),
            messages: request.messages.map(convertToAnthropicMessage),
            ...prepareAnthropicTools(request.tools),
            stream: true,
          },
          merged,
          'anthropic',
        ),
        parse: parseAnthropicStream,
        errorMessage: (body) => vendorErrorMessage(body, 'type'),
        errorCode: anthropicErrorCode,
      });
    },
  };
}

/** Anthropic's error `type` (`overloaded_error`, `invalid_request_error`) from an error body. */
function anthropicErrorCode(body: unknown): string | undefined {
  const type = (body as { error?: { type?: unknown } } | null)?.error?.type;
  return typeof type === 'string' ? type : undefined;
}
