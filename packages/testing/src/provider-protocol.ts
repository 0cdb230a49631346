import type { InStreamError } from './delivery-faults.ts';
import type { ScriptedReply } from './scripted-reply.ts';
import type { SentState } from './sent-state.ts';

/** The wire protocols the server speaks. */
export const providers = [
  'openai',
  'anthropic',
  'gemini',
  'openai-responses',
] as const;

/** The wire protocol the server speaks: OpenAI Chat Completions, Anthropic, Gemini or OpenAI Responses. */
export type Provider = (typeof providers)[number];

/** A provider-shaped error before rendering: status, code (OpenAI `code`, Anthropic `error.type`), message. */
export interface ProviderError {
  readonly status: number;
  readonly code: string | null;
  readonly message: string;
  /** OpenAI `error.type`; derived from the status when absent. */
  readonly type?: string | null;
  /** OpenAI `error.param`. */
  readonly param?: string | null;
}

/** One event of the conversation history, with provider differences removed. */
export type HistoryEvent =
  | { readonly type: 'system'; readonly text: string }
  | { readonly type: 'user'; readonly text: string }
  | {
      readonly type: 'assistant';
      readonly text: string;
      readonly calls: readonly { readonly id: string; readonly name: string }[];
    }
  | {
      readonly type: 'tool-result';
      readonly callId: string;
      readonly content: unknown;
      readonly isError: boolean;
    };

/** A request body after parsing and shape checks. */
export interface ParsedRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly history: readonly HistoryEvent[];
  /** The request body as sent, for options a renderer honours (`include`, `thinkingConfig`). */
  readonly body?: unknown;
}

/** One SSE frame (or the whole JSON body), and whether it is the terminal frame. */
export interface Frame {
  readonly text: string;
  readonly terminal: boolean;
}

/** Options for rendering a reply. */
export interface RenderOptions {
  readonly request: ParsedRequest;
  /** Deterministic id suffix (the attempt number). */
  readonly sequence: number;
  /** How many UTF-16 code units each tool-argument fragment carries. */
  readonly argumentSliceLength: number;
  /** Where the renderer records opaque state that strict mode later checks. */
  readonly sent: SentState;
}

/** A rendered reply: the JSON body for non-streaming requests, the frames for streams. */
export interface RenderedReply {
  readonly contentType: string;
  readonly frames: readonly Frame[];
}

/** What the server needs from each provider adapter. */
export interface ProviderProtocol {
  readonly provider: Provider;
  /** True for the request paths this provider serves. */
  matches(path: string): boolean;
  /** True for an unknown path that looks like this provider's, so its 404 is in its shape. */
  resembles(path: string): boolean;
  /** The provider's error code for a status the server produces itself (404, 413). */
  codeFor(status: number): string | null;
  /** The 400 this provider answers a content-filtered prompt with. */
  contentFilterError(): ProviderError;
  /** The response header that carries the request id. */
  readonly requestIdHeader: string;
  checkAuth(
    headers: Readonly<Record<string, string>>,
    apiKey: string | undefined,
  ): ProviderError | undefined;
  /** `path` carries the model and the streaming choice for providers that put them there. */
  parse(
    body: unknown,
    path: string,
    sent: SentState,
  ): ParsedRequest | ProviderError;
  /**
   * Strict mode: the provider's own 400 (or 404) for broken tool history, or for opaque state
   * (signatures, reasoning items) the server sent that the request drops or changes.
   */
  checkToolHistory(
    body: unknown,
    sent: SentState,
    path: string,
  ): ProviderError | undefined;
  errorBody(error: ProviderError, requestId: string): object;
  render(reply: ScriptedReply, options: RenderOptions): RenderedReply;
  /** An error event sent after a 200, in the provider's in-stream format. */
  streamErrorFrame(error: ProviderError, fault?: InStreamError): string;
  /** A frame with broken JSON, in the provider's framing. */
  malformedFrame(frame: Frame): string;
  /** The 400 for a body that is not JSON. */
  malformedBodyError(): ProviderError;
}

/** True when a parse result is an error rather than a request. */
export function isProviderError(
  value: ParsedRequest | ProviderError,
): value is ProviderError {
  return 'status' in value;
}
