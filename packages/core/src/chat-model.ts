import { type ToolErrorCode } from '@candor/errors';

/** A JSON value: what provider data is made of, so a saved conversation survives `JSON.stringify`. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/**
 * Opaque state a provider needs back verbatim on the next request (Anthropic's thinking
 * signature, Gemini's `thoughtSignature`, an OpenAI reasoning item's id and encrypted content),
 * keyed by the wire that received it: `anthropic`, `google`, `openai` (the Responses wire),
 * `openaiCompatible`, `aiSdk`. A wire reads and replays only its own key, so a conversation moved
 * to another provider keeps its text and drops the foreign data.
 */
export type ProviderData = Readonly<
  Record<string, Readonly<Record<string, JsonValue>>>
>;

/** A tool call as the model asked for it. `arguments` is the raw JSON text, validated later. */
export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  /** What the provider sent with the call and needs back with it (Gemini's thought signature). */
  readonly providerData?: ProviderData;
}

/** Text the model answered, with any provider data that came with it. */
export interface AssistantTextPart {
  readonly type: 'text';
  readonly text: string;
  readonly providerData?: ProviderData;
}

/**
 * The model's reasoning: its text (or summary), or none when the provider shows only an opaque
 * or redacted form. `providerData` holds what the provider needs back to continue the reasoning
 * (Anthropic's signature or redacted `data`, an OpenAI reasoning item, Gemini's signature).
 */
export interface ReasoningPart {
  readonly type: 'reasoning';
  readonly text: string;
  /** The provider sent the reasoning redacted or encrypted only: `text` is empty then. */
  readonly redacted?: boolean;
  readonly providerData?: ProviderData;
}

/** A tool call, in its place among the turn's parts. */
export interface AssistantToolCallPart {
  readonly type: 'tool-call';
  readonly call: ModelToolCall;
}

/** One part of an assistant turn, in the order the model produced them. */
export type AssistantPart =
  AssistantTextPart | ReasoningPart | AssistantToolCallPart;

/** One tool result as it goes back to the model. */
export interface ToolResultMessage {
  readonly callId: string;
  readonly toolName: string;
  readonly content: string;
  /** Sent as Anthropic's `is_error`; OpenAI has no such flag, so the content says it. */
  readonly isError: boolean;
  /**
   * The error's code when `isError` is set: Gemini has no error flag, so its wire sends an
   * `error` object with this code next to the text.
   */
  readonly code?: ToolErrorCode;
}

/** The provider-neutral conversation. Tool results follow their assistant turn, in call order. */
export type ChatMessage =
  | { readonly role: 'user'; readonly content: string }
  | {
      readonly role: 'assistant';
      /** The turn's text, all text parts joined. */
      readonly content: string;
      /** The turn's tool calls, in order. */
      readonly toolCalls: readonly ModelToolCall[];
      /**
       * The whole turn in order: reasoning, text and tool calls, each with the provider data
       * it needs back. Authoritative when present (`content` and `toolCalls` are derived from
       * it); a message without it (written by hand, or saved before parts existed) is read as
       * its text, then its tool calls. Read it with `assistantParts(message)`.
       */
      readonly parts?: readonly AssistantPart[];
    }
  | { readonly role: 'tool'; readonly results: readonly ToolResultMessage[] };

/** A tool as the model sees it. */
export interface ModelToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** Token counts, when the provider reports them. */
export interface Usage {
  readonly inputTokens: number;
  /** Every token the provider bills as output, reasoning tokens included. */
  readonly outputTokens: number;
  /** The part of `outputTokens` spent on reasoning, when the provider reports it. */
  readonly reasoningTokens?: number;
}

/**
 * Vendor request fields Candor does not name, per wire key (`anthropic`, `google`, `openai`,
 * `openaiCompatible`; for `fromLanguageModel`, the AI SDK's own `providerOptions`). Each wire
 * merges its own key's object into the request body, over what Candor sets.
 */
export type ProviderOptions = Readonly<
  Record<string, Readonly<Record<string, unknown>>>
>;

/**
 * How the model samples and where it stops, settable per model (the wire's options) and per run
 * (`RunOptions.settings`, which wins key by key). Candor checks types and universal ranges; the
 * rules of one model (a reasoning model that refuses `temperature`, say) are the vendor's, and
 * its 400 comes back as a `model_error` with the vendor's message.
 */
export interface CallSettings {
  /** At least 0. */
  readonly temperature?: number;
  /** Greater than 0, at most 1. */
  readonly topP?: number;
  /** A positive integer. */
  readonly maxOutputTokens?: number;
  /** Non-empty strings. */
  readonly stopSequences?: readonly string[];
  /** An integer. */
  readonly seed?: number;
  readonly providerOptions?: ProviderOptions;
}

/** One request to a model. */
export interface ChatRequest {
  readonly instructions?: string;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ModelToolSpec[];
  /** The run's settings, already checked; the wire lays them over its own. */
  readonly settings?: CallSettings;
  readonly signal?: AbortSignal;
  /**
   * Told before each retry of this request (the agent turns these into span events). A wire
   * that never retries never calls it.
   */
  readonly onRetry?: (retry: {
    readonly attempt: number;
    readonly error: unknown;
    readonly delayMs: number;
  }) => void;
}

/** Why a model turn ended, in one vocabulary for every provider. */
export type FinishReason =
  'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

/**
 * What a model streams. A tool call is emitted only once it is fully assembled; a stream that
 * ends without its terminal frame throws a `ModelError` instead of emitting `finish`.
 */
export type ModelEvent =
  /** Text, appended to the open text part (or opening one). */
  | { readonly type: 'text-delta'; readonly text: string }
  /** Closes the open text part (an empty one if none is open), with the data that came with it. */
  | { readonly type: 'text-end'; readonly providerData?: ProviderData }
  /** Reasoning text, appended to the open reasoning part (or opening one). */
  | { readonly type: 'reasoning-delta'; readonly text: string }
  /** Closes the open reasoning part (an empty one if none is open), with its provider data. */
  | {
      readonly type: 'reasoning-end';
      readonly providerData?: ProviderData;
      readonly redacted?: boolean;
    }
  /** A whole tool call; it closes any open part. */
  | { readonly type: 'tool-call'; readonly call: ModelToolCall }
  | {
      readonly type: 'finish';
      readonly finishReason: FinishReason;
      readonly usage?: Usage;
      /** The response's id and the model that answered, as the provider names them. */
      readonly response?: { readonly id?: string; readonly model?: string };
    };

/**
 * A chat model. Implementations: `openaiCompatible`, `anthropic`, `gemini` and `scriptedModel`
 * (from `@candor/core/testing`); anything else that streams these events works too.
 */
export interface ChatModel {
  /** The provider's name, as in traces (`openai`, `anthropic`, …). */
  readonly provider: string;
  /** The model's name, as the provider knows it. */
  readonly model: string;
  /** Sends one request and yields the model's events; tool calls arrive fully assembled. */
  stream(request: ChatRequest): AsyncIterable<ModelEvent>;
}
