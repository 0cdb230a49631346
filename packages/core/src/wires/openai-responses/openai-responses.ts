import {
  type CallSettings,
  type ChatModel,
  type ChatRequest,
  type ModelEvent,
} from '../../chat-model.ts';
import { checkCallSettings, mergeCallSettings } from '../../call-settings.ts';
import { httpModelStream } from '../../http-model-stream.ts';
import { type RetryOptions, retryPolicy } from '../../retry-policy.ts';
import { hostedWireOptions } from '../hosted-wire-options.ts';
import {
  convertToResponsesInput,
  PROVIDER_KEY,
} from './convert-to-responses-input.ts';
import { parseResponsesStream } from './parse-responses-stream.ts';
import { prepareResponsesSettings } from './prepare-responses-settings.ts';
import { prepareResponsesTools } from './prepare-responses-tools.ts';

const WIRE = 'openaiResponses';

/** What the model is asked to reason with: the request's `reasoning` object. */
export interface OpenAIResponsesReasoning {
  /** How hard the model reasons, e.g. `low`, `medium`, `high`; which values a model takes is OpenAI's rule. */
  readonly effort?:
    'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | (string & {});
  /** Ask for reasoning summaries (`auto`, `concise`, `detailed`): they stream as reasoning text. */
  readonly summary?: 'auto' | 'concise' | 'detailed' | (string & {});
}

/** Options of {@link openaiResponses}. */
export interface OpenAIResponsesOptions extends RetryOptions, CallSettings {
  /** Defaults to the OPENAI_API_KEY environment variable; required one way or the other. */
  readonly apiKey?: string;
  /** e.g. `gpt-5`, `o4-mini`. */
  readonly model: string;
  /** Defaults to https://api.openai.com/v1 (`/responses` is added). */
  readonly baseURL?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as the request's `reasoning`; only reasoning models take it. */
  readonly reasoning?: OpenAIResponsesReasoning;
  /** Sends every tool with `strict: true` (its schema must then suit strict mode). Default false. */
  readonly strictTools?: boolean;
}

const SETTING_KEYS = [
  'temperature',
  'topP',
  'maxOutputTokens',
  'stopSequences',
  'seed',
  'providerOptions',
] as const;

function openAIErrorMessage(body: unknown): string | undefined {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  const message = error?.['message'];
  if (typeof message !== 'string') return undefined;
  const code = error?.['code'] ?? error?.['type'];
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

function checkReasoning(
  reasoning: unknown,
): OpenAIResponsesReasoning | undefined {
  if (reasoning === undefined) return undefined;
  if (typeof reasoning !== 'object' || reasoning === null)
    throw new TypeError(`${WIRE}: reasoning must be an object`);
  const { effort, summary } = reasoning as Record<string, unknown>;
  for (const [name, value] of [
    ['effort', effort],
    ['summary', summary],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || value === ''))
      throw new TypeError(
        `${WIRE}: reasoning.${name} must be a non-empty string`,
      );
  }
  return {
    ...(effort === undefined ? {} : { effort: effort as string }),
    ...(summary === undefined ? {} : { summary: summary as string }),
  };
}

/** `include` from the caller's provider options joined to the wire's, never replacing it. */
function joinedInclude(extra: unknown): string[] {
  const include = ['reasoning.encrypted_content'];
  if (Array.isArray(extra))
    for (const value of extra as unknown[])
      if (typeof value === 'string' && !include.includes(value))
        include.push(value);
  return include;
}

/**
 * An OpenAI model over the Responses API (`POST /v1/responses`, streamed). Reasoning items come
 * back as reasoning parts with their id and `encrypted_content`, and go back on the next request
 * directly before the item they produced; the request is sent with `store: false` and
 * `include: ["reasoning.encrypted_content"]`, so nothing depends on state kept by OpenAI. Tool
 * results go back as `function_call_output` items matched by `call_id` (the API has no error
 * flag: a failed call's output says `[CODE] …`). `providerOptions.openai` is merged into the
 * body last. For OpenAI-compatible servers (Ollama, vLLM, llama.cpp) use `openaiCompatible`.
 *
 * @example
 * ```ts
 * // The key comes from OPENAI_API_KEY unless `apiKey` is given.
 * const model = openaiResponses({
 *   model: 'gpt-5',
 *   reasoning: { effort: 'medium', summary: 'auto' },
 * });
 * ```
 */
export function openaiResponses(options: OpenAIResponsesOptions): ChatModel {
  const { apiKey, baseURL } = hostedWireOptions(WIRE, options, {
    apiKeyVariable: 'OPENAI_API_KEY',
    baseURL: 'https://api.openai.com/v1',
  });
  const picked: Record<string, unknown> = {};
  for (const key of SETTING_KEYS)
    if (options[key] !== undefined) picked[key] = options[key];
  const settings = checkCallSettings(picked, WIRE);
  // Refused when the model is made, not on its first request.
  prepareResponsesSettings(settings, WIRE);
  const reasoning = checkReasoning(options.reasoning);
  const strict = options.strictTools ?? false;
  if (typeof strict !== 'boolean')
    throw new TypeError(`${WIRE}: strictTools must be a boolean`);
  const retry = retryPolicy(options);
  const url = `${baseURL}/responses`;
  const headers = { authorization: `Bearer ${apiKey}`, ...options.headers };
  return {
    provider: 'openai',
    model: options.model,
    stream(request: ChatRequest): AsyncIterable<ModelEvent> {
      const merged = mergeCallSettings(settings, request.settings);
      const extra = merged.providerOptions?.[PROVIDER_KEY] ?? {};
      return httpModelStream({
        provider: 'openai',
        url,
        headers,
        retry,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(request.onRetry === undefined ? {} : { onRetry: request.onRetry }),
        body: {
          model: options.model,
          ...(request.instructions === undefined
            ? {}
            : { instructions: request.instructions }),
          input: convertToResponsesInput(request.messages),
          ...prepareResponsesTools(request.tools, strict),
          ...(reasoning === undefined ? {} : { reasoning }),
          ...prepareResponsesSettings(merged, WIRE),
          store: false,
          ...extra,
          include: joinedInclude(extra['include']),
          // The parser reads a stream: no option turns it off.
          stream: true,
        },
        parse: parseResponsesStream,
        errorMessage: openAIErrorMessage,
      });
    },
  };
}
