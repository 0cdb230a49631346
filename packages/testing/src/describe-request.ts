import { classifyToolResult } from './classify-tool-result.ts';
import type { ParsedRequest } from './provider-protocol.ts';
import type { RequestView } from './view-history.ts';

/** True when any text in the history mentions `term` (case-insensitive). */
export function mentions(request: ParsedRequest, term: string): boolean {
  const needle = term.toLowerCase();
  return request.history.some((event) => {
    const text =
      event.type === 'tool-result'
        ? (classifyToolResult({ content: event.content }).text ?? '')
        : event.text;
    return text.toLowerCase().includes(needle);
  });
}

/** A short description of what the matchers saw, for unmatched requests. */
export function describeView(view: RequestView): string {
  if (view.userText !== undefined) {
    return `latest user text ${JSON.stringify(view.userText.slice(0, 80))}`;
  }
  const results = [...view.results.entries()].map(
    ([callId, result]) => `${callId}=${classifyToolResult(result).kind}`,
  );
  return results.length > 0
    ? `latest tool results ${results.join(', ')}`
    : 'no user text or tool results after the last assistant turn';
}
