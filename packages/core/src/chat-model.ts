import { type ToolErrorCode } from '@candor/errors';

/** A tool call as the model asked for it. `arguments` is the raw JSON text, validated later. */
export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

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
      readonly content: string;
      readonly toolCalls: readonly ModelToolCall[];
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
  readonly outputTokens: number;
}

/** One request to a model. */
export interface ChatRequest {
  readonly instructions?: string;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ModelToolSpec[];
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
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'tool-call'; readonly call: ModelToolCall }
  | {
      readonly type: 'finish';
      readonly finishReason: FinishReason;
      readonly usage?: Usage;
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
