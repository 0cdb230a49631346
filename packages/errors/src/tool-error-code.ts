/**
 * The 15 standard tool error codes. A closed set: every failed tool call in Candor carries exactly
 * one of them, so models, budgets, breakers and dashboards can branch on it.
 *
 * @example
 * ```ts
 * import { ToolErrorCode } from '@candor/errors';
 * if (code === ToolErrorCode.NOT_FOUND) { … }
 * ```
 */
export const ToolErrorCode = {
  NOT_FOUND: 'NOT_FOUND',
  ACCESS_DENIED: 'ACCESS_DENIED',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  IS_DIRECTORY: 'IS_DIRECTORY',
  BINARY_FILE: 'BINARY_FILE',
  INVALID_PARAM: 'INVALID_PARAM',
  INVALID_FORMAT: 'INVALID_FORMAT',
  EXECUTION_ERROR: 'EXECUTION_ERROR',
  TIMEOUT: 'TIMEOUT',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  CONFLICT: 'CONFLICT',
  CIRCUIT_OPEN: 'CIRCUIT_OPEN',
  NETWORK_ERROR: 'NETWORK_ERROR',
  API_ERROR: 'API_ERROR',
  RATE_LIMIT: 'RATE_LIMIT',
} as const;

/** One of the 15 standard tool error codes. */
export type ToolErrorCode = (typeof ToolErrorCode)[keyof typeof ToolErrorCode];

/** Every code, in declaration order. */
export const allToolErrorCodes: readonly ToolErrorCode[] = Object.freeze(
  Object.values(ToolErrorCode),
);

const codeSet: ReadonlySet<string> = new Set(allToolErrorCodes);

/** True when `value` is exactly one of the 15 codes (case-sensitive). */
export function isToolErrorCode(value: unknown): value is ToolErrorCode {
  return typeof value === 'string' && codeSet.has(value);
}
