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
import { convertToGeminiContents } from './convert-to-gemini-contents.ts';
import { callIdSource, parseGeminiStream } from './parse-gemini-stream.ts';
import { prepareGeminiTools } from './prepare-gemini-tools.ts';

/** Options of {@link gemini}. */
export interface GeminiOptions extends RetryOptions {
  /** Defaults to the GEMINI_API_KEY environment variable; required one way or the other. */
  readonly apiKey?: string;
  /** e.g. `gemini-2.5-flash`. */
  readonly model: string;
  /** Defaults to https://generativelanguage.googleapis.com (the `/v1beta` path is added). */
  readonly baseURL?: string;
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
 * @example
 * ```ts
 * const model = gemini({ apiKey: process.env.GEMINI_API_KEY, model: 'gemini-2.5-flash' });
 * ```
 */
export function gemini(options: GeminiOptions): ChatModel {
  const { apiKey, baseURL } = hostedWireOptions('gemini', options, {
    apiKeyVariable: 'GEMINI_API_KEY',
    baseURL: 'https://generativelanguage.googleapis.com',
  });
  const retry = retryPolicy(options);
  const root = /\/v1(beta)?$/.test(baseURL) ? baseURL : `${baseURL}/v1beta`;
  const url = `${root}/models/${encodeURIComponent(options.model)}:streamGenerateContent?alt=sse`;
  const parse = parseGeminiStream(callIdSource());
  return {
    provider: 'gemini',
    model: options.model,
    stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      return httpModelStream({
        provider: 'gemini',
        url,
        headers: { 'x-goog-api-key': apiKey },
        retry,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(request.onRetry === undefined ? {} : { onRetry: request.onRetry }),
        body: {
          ...convertToGeminiContents(request),
          ...prepareGeminiTools(request.tools),
        },
        parse,
        errorMessage: (body) => vendorErrorMessage(body, 'status'),
        retryDelayMs: geminiRetryDelayMs,
      });
    },
  };
}
