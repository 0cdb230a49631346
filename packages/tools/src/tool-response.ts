import {
  allToolErrorCodes,
  classifyError,
  codeMetadata,
  isToolErrorCode,
  type ToolErrorCode,
} from '@candor/errors';
import { ToolProtocolError } from './tool-protocol-error.ts';
import {
  parseToolResponse,
  safeParseToolResponse,
  toolResponseFromJSON,
  toolResponseToJSON,
} from './tool-response-schema.ts';

/** Measurements of one call. `timeMs` is always there; tools may add token or item counts. */
export interface ToolStats {
  readonly timeMs: number;
  readonly [measure: string]: number;
}

/** Where a response came from. The registry fills it; tools rarely need to. */
export interface ToolContext {
  readonly toolName?: string;
  readonly callId?: string;
  /** The call's arguments, with secret-looking keys censored. */
  readonly params?: unknown;
  readonly [key: string]: unknown;
}

/** What went wrong, for an ERROR response. */
export interface ErrorInfo {
  readonly code: ToolErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly details?: Readonly<Record<string, unknown>>;
  /** The caller cancelled the call; says nothing about the tool's health. */
  readonly cancelled?: boolean;
  /** Set by an approval gate: the call was refused and did NOT run. Only with ACCESS_DENIED. */
  readonly denied?: boolean;
}

interface ResponseBase {
  /** What the model reads. */
  readonly text: string;
  /**
   * A structured payload. Absent, `null` and empty are three different things and stay so:
   * an absent key means the tool returned no data at all.
   */
  readonly data?: unknown;
  readonly stats: ToolStats;
  readonly context?: ToolContext;
}

/** The tool did what was asked. */
export interface SuccessResponse extends ResponseBase {
  readonly status: 'success';
}

/** The tool did part of what was asked; `reason` says why the rest is missing. */
export interface PartialResponse extends ResponseBase {
  readonly status: 'partial';
  /** Machine-readable, e.g. `truncated`, `output_cap`, `output_schema_mismatch`. */
  readonly reason: string;
}

/** The tool failed; `errorInfo` says how. */
export interface ErrorResponse extends ResponseBase {
  readonly status: 'error';
  readonly errorInfo: ErrorInfo;
}

/** The result of every tool call in Candor. */
export type ToolResponse = SuccessResponse | PartialResponse | ErrorResponse;

/** Fields every factory accepts. */
export interface ResponseOptions {
  readonly data?: unknown;
  readonly stats?: Partial<ToolStats>;
  readonly context?: ToolContext;
}

/** Options of {@link ToolResponse.partial}. */
export interface PartialOptions extends ResponseOptions {
  readonly reason: string;
}

/** Options of {@link ToolResponse.error}. */
export interface ErrorOptions extends ResponseOptions {
  /** Defaults to the code's metadata. */
  readonly retryable?: boolean;
  readonly retryAfterMs?: number;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cancelled?: boolean;
  /** What the model reads; defaults to the message. */
  readonly text?: string;
}

const noOptions: ResponseOptions = Object.freeze({});

function checkText(text: unknown): asserts text is string {
  if (typeof text !== 'string') {
    throw new ToolProtocolError({
      field: 'text',
      message: `ToolResponse: text must be a string, got ${typeof text}`,
    });
  }
}

function statsOf(given: Partial<ToolStats> | undefined): ToolStats {
  return given === undefined
    ? { timeMs: 0 }
    : { ...given, timeMs: given.timeMs ?? 0 };
}

// Each factory builds its response in one object literal per combination of optional fields,
// never a spread then more fields, so responses share a few fixed shapes (hidden classes).

function success(
  text: string,
  options: ResponseOptions = noOptions,
): SuccessResponse {
  checkText(text);
  const stats = statsOf(options.stats);
  const { context } = options;
  if ('data' in options) {
    const { data } = options;
    return context === undefined
      ? { status: 'success', text, data, stats }
      : { status: 'success', text, data, stats, context };
  }
  return context === undefined
    ? { status: 'success', text, stats }
    : { status: 'success', text, stats, context };
}

function partial(text: string, options: PartialOptions): PartialResponse {
  if (typeof options.reason !== 'string' || options.reason.trim() === '') {
    throw new ToolProtocolError({
      field: 'reason',
      message:
        'ToolResponse.partial: a non-empty machine-readable reason is required',
    });
  }
  checkText(text);
  const stats = statsOf(options.stats);
  const { context, reason } = options;
  if ('data' in options) {
    const { data } = options;
    return context === undefined
      ? { status: 'partial', text, data, stats, reason }
      : { status: 'partial', text, data, stats, context, reason };
  }
  return context === undefined
    ? { status: 'partial', text, stats, reason }
    : { status: 'partial', text, stats, context, reason };
}

function checkCode(code: unknown): asserts code is ToolErrorCode {
  if (!isToolErrorCode(code)) {
    throw new ToolProtocolError({
      field: 'errorInfo.code',
      message: `ToolResponse.error: unknown code ${typeof code === 'string' ? JSON.stringify(code) : `of type ${typeof code}`}; expected one of ${allToolErrorCodes.join(', ')}`,
    });
  }
}

function error(
  code: ToolErrorCode,
  message: string,
  options: ErrorOptions = noOptions,
): ErrorResponse {
  checkCode(code);
  if (typeof message !== 'string' || message.trim() === '') {
    throw new ToolProtocolError({
      field: 'errorInfo.message',
      message: 'ToolResponse.error: a non-empty message is required',
    });
  }
  const errorInfo: ErrorInfo = {
    code,
    message,
    retryable: options.retryable ?? codeMetadata[code].retryable,
    ...(options.retryAfterMs === undefined
      ? {}
      : { retryAfterMs: options.retryAfterMs }),
    ...(options.details === undefined ? {} : { details: options.details }),
    ...(options.cancelled === true ? { cancelled: true } : {}),
  };
  const text = options.text ?? message;
  checkText(text);
  const stats = statsOf(options.stats);
  const { context } = options;
  if ('data' in options) {
    const { data } = options;
    return context === undefined
      ? { status: 'error', text, data, stats, errorInfo }
      : { status: 'error', text, data, stats, context, errorInfo };
  }
  return context === undefined
    ? { status: 'error', text, stats, errorInfo }
    : { status: 'error', text, stats, context, errorInfo };
}

/** Options of {@link ToolResponse.denied}. */
export type DeniedOptions = Omit<
  ErrorOptions,
  'retryable' | 'cancelled' | 'retryAfterMs'
>;

function denied(message: string, options: DeniedOptions = {}): ErrorResponse {
  const response = error('ACCESS_DENIED', message, {
    ...options,
    retryable: false,
  });
  return { ...response, errorInfo: { ...response.errorInfo, denied: true } };
}

/**
 * An ERROR response for anything that was thrown, with the code, message and retry hints of
 * `classifyError`: the one way a catch block becomes a response.
 */
function fromThrown(
  thrown: unknown,
  options: ResponseOptions = {},
): ErrorResponse {
  const classified = classifyError(thrown);
  return error(classified.code, classified.message, {
    ...options,
    retryable: classified.retryable,
    ...(classified.retryAfterMs === undefined
      ? {}
      : { retryAfterMs: classified.retryAfterMs }),
    ...(classified.details === undefined
      ? {}
      : { details: classified.details }),
    ...(classified.cancelled === true ? { cancelled: true } : {}),
  });
}

/**
 * Factories for the three statuses and the approval gate's denial, plus validation and the JSON
 * round trip of the wire form.
 *
 * @example
 * ```ts
 * ToolResponse.success('3 files', { data: { files } });
 * ToolResponse.partial('first 100 lines', { reason: 'truncated', data: { lines } });
 * ToolResponse.error('NOT_FOUND', `No file at ${path}`);
 * ```
 */
export const ToolResponse = {
  /** A SUCCESS response: the model's text, and optional structured `data`. */
  success,
  /** A PARTIAL response: usable but incomplete, with the `reason` (`truncated`, `rounded`, …). */
  partial,
  /** An ERROR response with one of the 15 codes; retryability defaults to the code's. */
  error,
  /**
   * A refusal by a person or a policy: an ACCESS_DENIED error marked `denied`, never retryable,
   * which `outcomeOf` reports as `denied` and the breaker does not count.
   */
  denied,
  /** The ERROR response for anything thrown, through `classifyError`. */
  fromThrown,
  /** Checks an unknown value against the wire schema; throws a `ToolProtocolError` if it fails. */
  parse: parseToolResponse,
  /** Like `parse`, but returns `{ success, response }` or `{ success, error }` instead of throwing. */
  safeParse: safeParseToolResponse,
  /** Reads a response from its JSON text, checked against the wire schema. */
  fromJSON: toolResponseFromJSON,
  /** The response as JSON text that `fromJSON` reads back. */
  toJSON: toolResponseToJSON,
} as const;
