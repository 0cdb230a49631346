import { type ToolErrorCode } from './tool-error-code.ts';

/** Where a failure comes from. */
export const ErrorCategory = {
  RESOURCE: 'resource',
  PARAM: 'param',
  EXECUTION: 'execution',
  STATE: 'state',
  NETWORK: 'network',
} as const;

/** One of the five error categories. */
export type ErrorCategory = (typeof ErrorCategory)[keyof typeof ErrorCategory];

/** What Candor knows about a code before it sees a particular failure. */
export interface CodeMetadata {
  readonly code: ToolErrorCode;
  readonly category: ErrorCategory;
  /** Whether the same call may succeed if simply tried again later. */
  readonly retryable: boolean;
  /**
   * Whether a circuit breaker counts this code as a failure of the tool's health. Only
   * tool-health codes do: a model's bad arguments, a missing file or a denial must never
   * disable a healthy tool for everyone.
   */
  readonly countsForBreaker: boolean;
  /** One line, for docs and for the model. */
  readonly meaning: string;
}

function entry(
  code: ToolErrorCode,
  rest: Omit<CodeMetadata, 'code'>,
): CodeMetadata {
  return Object.freeze({ code, ...rest });
}

/**
 * Metadata for every code. `docs/codes.md` is checked against this table by a test.
 *
 * @example
 * ```ts
 * codeMetadata.TIMEOUT.countsForBreaker; // true
 * codeMetadata.INVALID_PARAM.countsForBreaker; // false
 * ```
 */
export const codeMetadata: Readonly<Record<ToolErrorCode, CodeMetadata>> =
  Object.freeze({
    NOT_FOUND: entry('NOT_FOUND', {
      category: 'resource',
      retryable: false,
      countsForBreaker: false,
      meaning:
        'The file, record, URL or tool that was asked for does not exist.',
    }),
    ACCESS_DENIED: entry('ACCESS_DENIED', {
      category: 'resource',
      retryable: false,
      countsForBreaker: false,
      meaning:
        'Refused by policy: an approval gate, a path outside the workspace, or a remote 401/403.',
    }),
    PERMISSION_DENIED: entry('PERMISSION_DENIED', {
      category: 'resource',
      retryable: false,
      countsForBreaker: false,
      meaning: 'The operating system refused the operation (EACCES or EPERM).',
    }),
    IS_DIRECTORY: entry('IS_DIRECTORY', {
      category: 'resource',
      retryable: false,
      countsForBreaker: false,
      meaning: 'A file was expected but the path is a directory.',
    }),
    BINARY_FILE: entry('BINARY_FILE', {
      category: 'resource',
      retryable: false,
      countsForBreaker: false,
      meaning: 'The file holds binary content that cannot be shown as text.',
    }),
    INVALID_PARAM: entry('INVALID_PARAM', {
      category: 'param',
      retryable: false,
      countsForBreaker: false,
      meaning:
        'An argument is missing, has the wrong type or is out of range; fix the arguments.',
    }),
    INVALID_FORMAT: entry('INVALID_FORMAT', {
      category: 'param',
      retryable: false,
      countsForBreaker: false,
      meaning:
        'The input could not be parsed (malformed JSON, expression or syntax).',
    }),
    EXECUTION_ERROR: entry('EXECUTION_ERROR', {
      category: 'execution',
      retryable: false,
      countsForBreaker: true,
      meaning:
        'The tool ran and failed (for a command: it exited with a non-zero code).',
    }),
    TIMEOUT: entry('TIMEOUT', {
      category: 'execution',
      retryable: true,
      countsForBreaker: true,
      meaning: 'The tool did not finish within its time limit.',
    }),
    INTERNAL_ERROR: entry('INTERNAL_ERROR', {
      category: 'execution',
      retryable: false,
      countsForBreaker: true,
      meaning:
        'The tool broke its own contract (for example it returned an invalid response).',
    }),
    CONFLICT: entry('CONFLICT', {
      category: 'state',
      retryable: false,
      countsForBreaker: false,
      meaning:
        'The target changed or already exists; re-read it before trying again.',
    }),
    CIRCUIT_OPEN: entry('CIRCUIT_OPEN', {
      category: 'state',
      retryable: true,
      countsForBreaker: false,
      meaning:
        'The tool is temporarily disabled after repeated failures and was not run.',
    }),
    NETWORK_ERROR: entry('NETWORK_ERROR', {
      category: 'network',
      retryable: true,
      countsForBreaker: true,
      meaning:
        'The connection failed (refused, reset, unreachable or DNS failure).',
    }),
    API_ERROR: entry('API_ERROR', {
      category: 'network',
      retryable: false,
      countsForBreaker: true,
      meaning:
        'A remote service answered with an error status (5xx errors are retryable).',
    }),
    RATE_LIMIT: entry('RATE_LIMIT', {
      category: 'network',
      retryable: true,
      countsForBreaker: true,
      meaning: 'A rate limit was hit; wait before trying again.',
    }),
  });

/** The metadata of one code. */
export function metadataOf(code: ToolErrorCode): CodeMetadata {
  return codeMetadata[code];
}
