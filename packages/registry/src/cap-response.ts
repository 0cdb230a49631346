import { type ToolResponse } from '@candor/tools';

/**
 * Capping, for a response with fields the wire schema does not name: a text longer than `limit`
 * is cut to its head and tail, and a success becomes PARTIAL.
 */
export function capResponse(
  response: ToolResponse,
  limit: number,
): ToolResponse {
  if (response.text.length <= limit) return response;
  const text = capText(response.text, limit);
  if (response.status === 'error') return { ...response, text };
  return {
    ...response,
    status: 'partial',
    text,
    reason:
      response.status === 'partial' ? response.reason : 'result_truncated',
  };
}

/** A text longer than `limit`, cut to its head and tail. */
export function capText(text: string, limit: number): string {
  const half = Math.floor(limit / 2);
  const omitted = text.length - 2 * half;
  return `${text.slice(0, half)}\n[… ${omitted} characters omitted …]\n${text.slice(-half)}`;
}
