import type { TestServerLogger } from './test-server-logger.ts';

/** Options for {@link LlmTestServer}. */
export interface LlmTestServerOptions {
  /**
   * Answer broken tool history (a tool call with no result, an orphan result) with the
   * provider's own 400, as the real APIs do. Default `true`. Turn it off to let
   * `whenToolResult(…, 'missing')` steps match.
   */
  readonly strict?: boolean;
  /** When set, only this key is accepted; otherwise any non-empty key is. */
  readonly apiKey?: string;
  /** UTF-16 code units per tool-argument fragment in streams. Default 7. */
  readonly argumentSliceLength?: number;
  /** Largest accepted request body. Default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** A pino-compatible logger. Default: silent. */
  readonly logger?: TestServerLogger;
}

/** Options for {@link LlmTestServer.simulateContentFilter}. */
export interface ContentFilterOptions {
  /**
   * `http400` (default): reject the request with a 400 whose code is `content_filter`.
   * `finish_reason`: answer 200 with OpenAI `finish_reason: "content_filter"` / Anthropic
   * `stop_reason: "refusal"` and no content.
   */
  readonly style?: 'http400' | 'finish_reason';
}

/** The running server: its base URL and a `close()` that leaves no open handles. */
export interface RunningLlmTestServer {
  /** `http://127.0.0.1:<port>`. OpenAI clients use `${url}/v1` as base URL; Anthropic clients use `url`. */
  readonly url: string;
  /** Destroys every connection (stalled ones included) and stops listening. Safe to destructure. */
  readonly close: () => Promise<void>;
}
