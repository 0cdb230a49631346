import { isToolErrorCode } from '@candor/errors';
import { type ToolResponse } from '@candor/tools';
import { breakerResponses } from './breaker-responses.ts';

const statuses: ReadonlySet<unknown> = new Set(['success', 'partial', 'error']);

function isToolResponseShape(value: unknown): value is ToolResponse {
  if (typeof value !== 'object' || value === null) return false;
  const { status, errorInfo } = value as {
    status?: unknown;
    errorInfo?: unknown;
  };
  if (!statuses.has(status)) return false;
  if (status !== 'error') return true;
  return (
    typeof errorInfo === 'object' &&
    errorInfo !== null &&
    isToolErrorCode((errorInfo as { code?: unknown }).code)
  );
}

/**
 * A standalone breaker's shape check of what `run` resolved with: the same object when it has a
 * status the breaker can count, else an INTERNAL_ERROR. A value whose reads throw is not a
 * response. (The registry checks far more: it snapshots and validates every response.)
 */
export function checkedResponse(tool: string, value: unknown): ToolResponse {
  try {
    if (isToolResponseShape(value)) return value;
  } catch {
    // A getter or Proxy trap that throws: not something the breaker can count.
  }
  return breakerResponses.notAResponse(tool);
}
