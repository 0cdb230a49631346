import { codeMetadata } from './code-metadata.ts';
import { type ToolErrorCode } from './tool-error-code.ts';
import { scrubUrlSecrets } from './scrub-url-secrets.ts';

/** Anything thrown, reduced to what a `ToolResponse` needs. */
export interface ClassifiedError {
  readonly code: ToolErrorCode;
  /** Readable, bounded, and never a stack trace. */
  readonly message: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly details?: Readonly<Record<string, unknown>>;
  /**
   * The caller cancelled the call (its own AbortSignal), as opposed to a timeout. A cancelled call
   * says nothing about the tool's health and never counts toward a breaker.
   */
  readonly cancelled?: true;
  /** The original thrown value, for logs. Never shown to a model. */
  readonly cause: unknown;
}

/** A classification, its message scrubbed of URL secrets, `retryable` defaulting to the code's. */
export function classifiedError(
  code: ToolErrorCode,
  message: string,
  fields: Partial<Omit<ClassifiedError, 'code' | 'message'>> & {
    cause: unknown;
  },
): ClassifiedError {
  return {
    code,
    message: scrubUrlSecrets(message),
    retryable: fields.retryable ?? codeMetadata[code].retryable,
    ...(fields.retryAfterMs === undefined
      ? {}
      : { retryAfterMs: fields.retryAfterMs }),
    ...(fields.details === undefined ? {} : { details: fields.details }),
    ...(fields.cancelled === true ? { cancelled: true as const } : {}),
    cause: fields.cause,
  };
}
