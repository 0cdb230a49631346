import {
  allToolErrorCodes,
  isToolErrorCode,
  type ToolErrorCode,
} from './tool-error-code.ts';
import { codeMetadata } from './code-metadata.ts';

const MARKER = Symbol.for('@candor/errors.ToolError');

/** What a {@link ToolError} is built from. */
export interface ToolErrorOptions {
  /** One of the 15 codes; the response carries exactly this code. */
  readonly code: ToolErrorCode;
  /** What went wrong, for the model and the logs. */
  readonly message: string;
  /** Defaults to the code's metadata. */
  readonly retryable?: boolean;
  /** How long to wait before retrying (a RATE_LIMIT's `Retry-After`, say). */
  readonly retryAfterMs?: number;
  /** Structured facts about the failure, copied into `errorInfo.details`. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** The underlying error, kept as `Error.cause`. */
  readonly cause?: unknown;
}

/**
 * A throwable for tools that prefer throwing over returning an error response. The registry turns
 * it into an ERROR response with exactly this code and message.
 *
 * @example
 * ```ts
 * throw new ToolError({ code: 'NOT_FOUND', message: `No user ${id}` });
 * ```
 */
export class ToolError extends Error {
  readonly [MARKER] = true as const;
  readonly code: ToolErrorCode;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  /**
   * Takes one options object: `new ToolError({ code: 'NOT_FOUND', message })`. A positional
   * call such as `new ToolError('NOT_FOUND', message)` throws a TypeError that shows this shape.
   */
  constructor(options: ToolErrorOptions) {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new TypeError(
        `ToolError takes one options object, new ToolError({ code: 'NOT_FOUND', message: '…' }); got ${typeof options}`,
      );
    }
    if (!isToolErrorCode(options.code)) {
      throw new TypeError(
        `ToolError: unknown code ${JSON.stringify(options.code)}; expected one of ${allToolErrorCodes.join(', ')}`,
      );
    }
    super(options.message, { cause: options.cause });
    this.name = 'ToolError';
    this.code = options.code;
    this.retryable = options.retryable ?? codeMetadata[options.code].retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.details = options.details;
  }

  /** Works across duplicate copies of this package, unlike `instanceof`. */
  static is(value: unknown): value is ToolError {
    return isToolError(value);
  }
}

/** True for a {@link ToolError} from any copy of `@candor/errors`. */
export function isToolError(value: unknown): value is ToolError {
  try {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[MARKER] === true
    );
  } catch {
    // A hostile proxy can throw from any trap; it is not one of ours.
    return false;
  }
}
