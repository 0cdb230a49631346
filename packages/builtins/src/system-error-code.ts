/** The `code` of a Node system error (`ENOENT`, `ELOOP`, ...), or undefined for anything else. */
export function systemErrorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error
    ? error.code
    : undefined;
}
