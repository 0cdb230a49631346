import { outcomeOf } from './outcome-of.ts';
import type { ToolResponse } from './tool-response.ts';

/** What one tool response becomes for the model: the content, and whether it is an error. */
export interface ModelVisibleResult {
  readonly content: string;
  readonly isError: boolean;
}

function seconds(ms: number): string {
  const value = Math.ceil(ms / 1000);
  return `${value} s`;
}

function successContent(response: ToolResponse): string {
  if (response.text !== '') return response.text;
  if ('data' in response && response.data !== undefined) {
    try {
      // JSON.stringify gives undefined for functions and symbols; say so rather than send "undefined".
      const json = JSON.stringify(response.data) as string | undefined;
      return json ?? '(The tool succeeded; its data cannot be shown as JSON.)';
    } catch {
      return '(The tool succeeded; its data could not be shown as JSON.)';
    }
  }
  return '(The tool succeeded and returned no output.)';
}

/**
 * The one mapping from a tool's outcome to what the model reads. Success is the text; partial
 * says plainly that the result is incomplete and why; an error gives its code, its message and
 * whether a retry makes sense; a denial says the call did not run; an open circuit says the tool
 * is unavailable for now.
 */
export function toolResultForModel(
  response: ToolResponse,
  toolName: string,
): ModelVisibleResult {
  const outcome = outcomeOf(response);
  switch (outcome) {
    case 'success':
      return { content: successContent(response), isError: false };
    case 'partial': {
      const reason =
        response.status === 'partial' ? response.reason : 'unknown';
      return {
        content: `[INCOMPLETE RESULT: ${reason}] This result is incomplete; do not present it as complete.\n${successContent(response)}`,
        isError: false,
      };
    }
    case 'denied': {
      const message =
        response.status === 'error'
          ? response.errorInfo.message
          : response.text;
      return {
        content: `[DENIED] This call was NOT executed. ${message} Do not retry it unless the user asks.`,
        isError: false,
      };
    }
    case 'error': {
      if (response.status !== 'error')
        return { content: response.text, isError: true };
      const { code, message, retryable, retryAfterMs } = response.errorInfo;
      if (code === 'CIRCUIT_OPEN') {
        // 0 means a trial call is already testing the tool: it is unavailable only for now.
        const wait =
          retryAfterMs === undefined || retryAfterMs <= 0
            ? 'for now'
            : `for ${seconds(retryAfterMs)}`;
        return {
          content: `[CIRCUIT_OPEN] The tool "${toolName}" is unavailable ${wait} after repeated failures; it was not run. Use another way to proceed.`,
          isError: true,
        };
      }
      const advice = !retryable
        ? 'Retrying the same call will not help: change the arguments or the approach.'
        : retryAfterMs === undefined
          ? 'A retry may succeed.'
          : `A retry may succeed after ${seconds(retryAfterMs)}.`;
      // The registry already retried: say so, so the model does not retry blindly at once.
      const attempts = response.stats['attempts'];
      const tried =
        attempts !== undefined && attempts > 1
          ? ` (failed after ${attempts} attempts)`
          : '';
      return {
        content: `[${code}] ${message}${tried}\n${advice}`,
        isError: true,
      };
    }
  }
}
