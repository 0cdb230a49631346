/** What went wrong with a model call. */
export type ModelErrorKind =
  | 'http'
  | 'network'
  | 'stream'
  | 'incomplete'
  | 'malformed'
  | 'aborted'
  | 'script';

/**
 * A failed model call: a provider's HTTP error, a connection failure, an in-stream error, a
 * stream that ended without its terminal frame, an unreadable frame, or a request JSON cannot
 * carry (`malformed`, never retried: a BigInt or a cycle in a hand-built history). It ends the
 * run with `model_error`; it is never shown to the model as a tool error.
 */
export class ModelError extends Error {
  readonly kind: ModelErrorKind;
  readonly status: number | undefined;
  /**
   * The provider's own name for the failure, when it sent one: Google's `status`
   * (`UNAVAILABLE`), Anthropic's error `type` (`overloaded_error`), OpenAI's `code`.
   */
  readonly code: string | undefined;
  /** How many attempts were made, retries included. */
  readonly attempts: number;

  constructor(options: {
    kind: ModelErrorKind;
    message: string;
    status?: number;
    code?: string;
    attempts?: number;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.name = 'ModelError';
    this.kind = options.kind;
    this.status = options.status;
    this.code = options.code;
    this.attempts = options.attempts ?? 1;
  }
}
