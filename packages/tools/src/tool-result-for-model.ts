import { readProperty } from '@candor/errors';
import { outcomeOf } from './outcome-of.ts';
import { SecretRedactor } from './secret-redactor.ts';
import type { ErrorResponse, ToolResponse } from './tool-response.ts';

/** What one tool response becomes for the model: the content, and whether it is an error. */
export interface ModelVisibleResult {
  readonly content: string;
  readonly isError: boolean;
}

/** Options of {@link toolResultForModel}. */
export interface ToolResultForModelOptions {
  /**
   * The error-detail budget: how many UTF-8 bytes of each stream of a failed call's own output
   * the model reads (the tail of `stdout` and of `stderr`, the start of an HTTP `body`, or the
   * start of the error's `text`). A longer stream is cut, with a marker saying how many bytes
   * were left out. Default 4096; `0` sends no detail.
   */
  readonly maxDetailBytes?: number;
  /**
   * Censors secret-looking keys when a success's `data` is shown as JSON. Pass the one your
   * registry uses (same `extraKeys`); the built-in key list by default.
   */
  readonly redactor?: SecretRedactor;
}

/** Bytes of each error-detail stream the model reads by default. */
export const DEFAULT_MAX_DETAIL_BYTES = 4096;

const defaultRedactor = new SecretRedactor();
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function seconds(ms: number): string {
  const value = Math.ceil(ms / 1000);
  return `${value} s`;
}

function successContent(
  response: ToolResponse,
  redactor: SecretRedactor,
): string {
  if (response.text !== '') return response.text;
  if ('data' in response && response.data !== undefined) {
    try {
      // The model reads this text, so secret-looking keys are censored like every other surface.
      // JSON.stringify gives undefined for functions and symbols; say so rather than send "undefined".
      const json = JSON.stringify(redactor.redact(response.data)) as
        string | undefined;
      return json ?? '(The tool succeeded; its data cannot be shown as JSON.)';
    } catch {
      return '(The tool succeeded; its data could not be shown as JSON.)';
    }
  }
  return '(The tool succeeded and returned no output.)';
}

// A UTF-8 continuation byte: cutting before one would split a character.
function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** The first `max` bytes of `text` (never half a character), and how many bytes were cut. */
function head(text: string, max: number): { text: string; cut: number } {
  const bytes = encoder.encode(text);
  if (bytes.length <= max) return { text, cut: 0 };
  let end = max;
  while (end > 0 && isContinuation(bytes[end])) end--;
  return {
    text: decoder.decode(bytes.subarray(0, end)),
    cut: bytes.length - end,
  };
}

/** The last `max` bytes of `text` (never half a character), and how many bytes were cut. */
function tail(text: string, max: number): { text: string; cut: number } {
  const bytes = encoder.encode(text);
  if (bytes.length <= max) return { text, cut: 0 };
  let start = bytes.length - max;
  while (start < bytes.length && isContinuation(bytes[start])) start++;
  return { text: decoder.decode(bytes.subarray(start)), cut: start };
}

function section(
  label: string,
  text: string,
  keep: { readonly end: 'head' | 'tail'; readonly max: number },
): string | undefined {
  const { end, max } = keep;
  if (text.trim() === '') return undefined;
  if (end === 'tail') {
    const kept = tail(text, max);
    const marker =
      kept.cut === 0 ? '' : `[… ${kept.cut} earlier bytes cut …]\n`;
    return `--- ${label} ---\n${marker}${kept.text}`;
  }
  const kept = head(text, max);
  const marker = kept.cut === 0 ? '' : `\n[… ${kept.cut} more bytes cut …]`;
  return `--- ${label} ---\n${kept.text}${marker}`;
}

function stringField(data: unknown, key: string): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  // A throwing getter or a hostile Proxy reads as no field: no detail from it, never a crash.
  const value = readProperty(data, key);
  return typeof value === 'string' ? value : undefined;
}

/**
 * The failed call's own words. A process's `stdout`/`stderr` and an HTTP `body` in `data` are
 * shown per stream (the end of a process's output, where the failure usually is; the start of a
 * body); otherwise the response's `text`, when it says more than the message.
 */
function errorDetail(response: ErrorResponse, max: number): string[] {
  if (max <= 0) return [];
  const data = 'data' in response ? response.data : undefined;
  const stdout = stringField(data, 'stdout');
  const stderr = stringField(data, 'stderr');
  if (stdout !== undefined || stderr !== undefined) {
    return [
      section('stdout', stdout ?? '', { end: 'tail', max }),
      section('stderr', stderr ?? '', { end: 'tail', max }),
    ].filter((part): part is string => part !== undefined);
  }
  const body = stringField(data, 'body');
  if (body !== undefined) {
    const part = section('body', body, { end: 'head', max });
    return part === undefined ? [] : [part];
  }
  const { message } = response.errorInfo;
  let text = response.text;
  if (text.trim() === message.trim()) return [];
  if (text.startsWith(message)) text = text.slice(message.length);
  const part = section('detail', text.replace(/^\s*\n/, ''), {
    end: 'head',
    max,
  });
  return part === undefined ? [] : [part];
}

function checkBudget(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_DETAIL_BYTES;
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(
      `toolResultForModel: maxDetailBytes must be a whole number of at least 0, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * The one mapping from a tool's outcome to what the model reads. Success is the text (or the
 * data as JSON, secret-looking keys censored); partial says plainly that the result is
 * incomplete and why; an error gives its code and message, then the tool's own detail within the
 * error-detail budget, then whether a retry makes sense; a denial says the call did not run; an
 * open circuit says the tool is unavailable for now.
 *
 * @example
 * ```ts
 * const { content, isError } = toolResultForModel(response, 'shell', { maxDetailBytes: 2048 });
 * // [EXECUTION_ERROR] The command exited with code 1
 * // --- stdout ---
 * // AssertionError: expected 5 to be 4
 * // Retrying the same call will not help: change the arguments or the approach.
 * ```
 */
export function toolResultForModel(
  response: ToolResponse,
  toolName: string,
  options: ToolResultForModelOptions = {},
): ModelVisibleResult {
  const maxDetailBytes = checkBudget(options.maxDetailBytes);
  const redactor = options.redactor ?? defaultRedactor;
  const outcome = outcomeOf(response);
  switch (outcome) {
    case 'success':
      return { content: successContent(response, redactor), isError: false };
    case 'partial': {
      const reason =
        response.status === 'partial' ? response.reason : 'unknown';
      return {
        content: `[INCOMPLETE RESULT: ${reason}] This result is incomplete; do not present it as complete.\n${successContent(response, redactor)}`,
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
        content: [
          `[${code}] ${message}${tried}`,
          ...errorDetail(response, maxDetailBytes),
          advice,
        ].join('\n'),
        isError: true,
      };
    }
  }
}
