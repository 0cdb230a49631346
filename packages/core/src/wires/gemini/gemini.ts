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
import { convertToGeminiContents } from './convert-to-gemini-contents.ts';
import { callIdSource, parseGeminiStream } from './parse-gemini-stream.ts';
import { prepareGeminiTools } from './prepare-gemini-tools.ts';

/**
 * Gemini's `generationConfig.thinkingConfig`
 * (https://ai.google.dev/gemini-api/docs/thinking): `thinkingLevel` for Gemini 3 models,
 * `thinkingBudget` (tokens; 0 turns thinking off where the model allows, -1 lets it decide) for
 * 2.5 models, and `includeThoughts` to receive thought summaries as reasoning parts. Which model
 * takes which is Google's rule: its 400 comes back with its message.
 */
export interface GeminiThinkingConfig {
  readonly thinkingLevel?: 'minimal' | 'low' | 'medium' | 'high';
  readonly thinkingBudget?: number;
  readonly includeThoughts?: boolean;
}

/**
 * Options of {@link gemini}. The call settings (`temperature`, `topP`, `maxOutputTokens`,
 * `stopSequences`, `seed`, `providerOptions.google`) go in `generationConfig` of every request
 * of this model; a run's `settings` win key by key.
 */
export interface GeminiOptions extends RetryOptions, CallSettings {
  /** Defaults to the GEMINI_API_KEY environment variable; required one way or the other. */
  readonly apiKey?: string;
  /** e.g. `gemini-2.5-flash`. */
  readonly model: string;
  /** Defaults to https://generativelanguage.googleapis.com (the `/v1beta` path is added). */
  readonly baseURL?: string;
  /** Thinking: level or budget, and whether thought summaries come back. */
  readonly thinkingConfig?: GeminiThinkingConfig;
}

const LEVELS: ReadonlySet<string> = new Set([
  'minimal',
  'low',
  'medium',
  'high',
]);

/** The thinking option, checked once and copied. */
function checkThinkingConfig(
  config: GeminiThinkingConfig | undefined,
): Record<string, unknown> | undefined {
  if (config === undefined) return undefined;
  if (typeof (config as unknown) !== 'object' || (config as unknown) === null)
    throw new TypeError('gemini: thinkingConfig must be an object');
  const { thinkingLevel, thinkingBudget, includeThoughts } = config;
  if (thinkingLevel !== undefined && !LEVELS.has(thinkingLevel))
    throw new TypeError(
      `gemini: thinkingConfig.thinkingLevel must be one of ${[...LEVELS].join(', ')}, got ${JSON.stringify(thinkingLevel)}`,
    );
  if (
    thinkingBudget !== undefined &&
    (!Number.isSafeInteger(thinkingBudget) || thinkingBudget < -1)
  )
    throw new RangeError(
      `gemini: thinkingConfig.thinkingBudget must be an integer of at least -1, got ${String(thinkingBudget)}`,
    );
  if (includeThoughts !== undefined && typeof includeThoughts !== 'boolean')
    throw new TypeError(
      'gemini: thinkingConfig.includeThoughts must be a boolean',
    );
  return {
    ...(thinkingLevel === undefined ? {} : { thinkingLevel }),
    ...(thinkingBudget === undefined ? {} : { thinkingBudget }),
    ...(includeThoughts === undefined ? {} : { includeThoughts }),
  };
}

/** `generationConfig` of one request; none when nothing is set. */
function generationConfig(
  settings: CallSettings,
  thinking: Record<string, unknown> | undefined,
): { generationConfig?: Record<string, unknown> } {
  const config = {
    ...(settings.temperature === undefined
      ? {}
      : { temperature: settings.temperature }),
    ...(settings.topP === undefined ? {} : { topP: settings.topP }),
    ...(settings.maxOutputTokens === undefined
      ? {}
      : { maxOutputTokens: settings.maxOutputTokens }),
    ...(settings.stopSequences === undefined
      ? {}
      : { stopSequences: settings.stopSequences }),
    ...(settings.seed === undefined ? {} : { seed: settings.seed }),
    ...(thinking === undefined ? {} : { thinkingConfig: thinking }),
  };
  return Object.keys(config).length === 0 ? {} : { generationConfig: config };
}

function googleErrorCode(body: unknown): string | undefined {
  const status = (body as { error?: { status?: unknown } } | null)?.error
    ?.status;
  return typeof status === 'string' ? status : undefined;
}

/**
 * The wait a 429 body asks for: Google puts it in a `google.rpc.RetryInfo` detail
 * (`"retryDelay": "37s"`) rather than in a `retry-after` header.
 */
export function geminiRetryDelayMs(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | null)?.error
    ?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details as unknown[]) {
    const delay = (detail as { retryDelay?: unknown } | null)?.retryDelay;
    const match =
      typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (match?.[1] !== undefined) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

/**
 * A Gemini model over the Generative Language API, streaming `streamGenerateContent?alt=sse`.
 * Tool results go back as `functionResponse` parts: `{ output }` for a result, `{ error: { code,
 * message } }` for a failure (Gemini has no error flag). Where Gemini gives a call no id, the
 * wire makes one up and never sends it back.
 *
 * Thought signatures stay on the parts they came with and go back on them; a tool call moved
 * here from another provider gets Google's placeholder signature in the current turn.
 *
 * @example
 * ```ts
 * const model = gemini({
 *   apiKey: process.env.GEMINI_API_KEY,
 *   model: 'gemini-3-flash-preview',
 *   thinkingConfig: { thinkingLevel: 'low', includeThoughts: true },
 * });
 * ```
 */
export function gemini(options: GeminiOptions): ChatModel {
  const { apiKey, baseURL } = hostedWireOptions('gemini', options, {
    apiKeyVariable: 'GEMINI_API_KEY',
    baseURL: 'https://generativelanguage.googleapis.com',
  });
  const settings = modelSettings('gemini', options);
  const thinking = checkThinkingConfig(options.thinkingConfig);
  const retry = retryPolicy(options);
  const root = /\/v1(beta)?$/.test(baseURL) ? baseURL : `${baseURL}/v1beta`;
  const url = `${root}/models/${encodeURIComponent(options.model)}:streamGenerateContent?alt=sse`;
  const parse = parseGeminiStream(callIdSource());
  return {
    // The GenAI registry's name for the Gemini API:
    // https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/
    provider: 'gcp.gemini',
    model: options.model,
    stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      const merged = requestSettings(settings, request);
      return httpModelStream({
        provider: 'gemini',
        url,
        headers: { 'x-goog-api-key': apiKey },
        retry,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(request.onRetry === undefined ? {} : { onRetry: request.onRetry }),
        body: withProviderOptions(
          {
            ...convertToGeminiContents(request),
            ...prepareGeminiTools(request.tools),
            ...generationConfig(merged, thinking),
          },
          merged,
          'google',
        ),
        parse,
        errorMessage: (body) => vendorErrorMessage(body, 'status'),
        errorCode: googleErrorCode,
        retryDelayMs: geminiRetryDelayMs,
      });
    },
  };
}
