import type { ToolResultInput } from './classify-tool-result.ts';
import type { HistoryEvent } from './provider-protocol.ts';

/** The tail of a request's history, as the matchers see it. */
export interface RequestView {
  /** The latest user text, only when the tail has no tool results. */
  readonly userText: string | undefined;
  readonly lastCalls: readonly { readonly id: string; readonly name: string }[];
  readonly results: ReadonlyMap<string, ToolResultInput>;
  readonly latestResult: ToolResultInput | undefined;
}

/** Builds the matcher view of a history. */
export function viewHistory(history: readonly HistoryEvent[]): RequestView {
  let lastAssistant = -1;
  history.forEach((event, index) => {
    if (event.type === 'assistant') {
      lastAssistant = index;
    }
  });
  const assistant = history[lastAssistant];
  const tail = history.slice(lastAssistant + 1);
  const results = new Map<string, ToolResultInput>();
  let latestResult: ToolResultInput | undefined;
  let userText: string | undefined;
  for (const event of tail) {
    if (event.type === 'tool-result') {
      latestResult = { content: event.content, isError: event.isError };
      results.set(event.callId, latestResult);
    } else if (event.type === 'user') {
      userText = event.text;
    }
  }
  return {
    userText: results.size > 0 ? undefined : userText,
    lastCalls: assistant?.type === 'assistant' ? assistant.calls : [],
    results,
    latestResult,
  };
}
