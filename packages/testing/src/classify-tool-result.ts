import { isToolErrorCode } from '@candor/errors';

/**
 * The kinds a tool result can have, as the script model sees them:
 * - `ok`: a result with content;
 * - `null`: the result exists but its content is `null`, absent, or the JSON text `null`;
 * - `empty`: the content is `""`, whitespace, `[]` or text blocks with no text;
 * - `missing`: the model called the tool but no result for that call id was sent;
 * - `error`: the content is the failure envelope `{"error":{"code","message","retryable"}}`,
 *   the provider's own error flag (Anthropic `is_error: true`, a Gemini `error` response) is set,
 *   or the text starts with a Candor error code in brackets (`[NOT_FOUND] …`);
 * - `denied`: Candor's `[DENIED] …` text: the call was refused and did not run;
 * - `partial`: Candor's `[INCOMPLETE RESULT: reason] …` text.
 */
export const toolResultKinds = [
  'ok',
  'null',
  'empty',
  'missing',
  'error',
  'denied',
  'partial',
] as const;

/** One of {@link toolResultKinds}. */
export type ToolResultKind = (typeof toolResultKinds)[number];

/** A tool result as it arrived on the wire, before classification. */
export interface ToolResultInput {
  /** The wire content: a string, an array of content blocks, `null`, or `undefined` when absent. */
  readonly content: unknown;
  /** The provider's error flag (Anthropic `is_error`); OpenAI has none. */
  readonly isError?: boolean;
}

/** The classifier's verdict. `json` is the parsed text when the text is JSON. */
export interface ClassifiedToolResult {
  /** The kind used by `whenToolResult`. */
  readonly kind: ToolResultKind;
  /** The content as text (text blocks joined), or `undefined` when there is none. */
  readonly text: string | undefined;
  /** The parsed JSON of `text`, used by `whenLatestJson`; absent when the text is not JSON. */
  readonly json?: unknown;
  /**
   * An error's code: Candor's bracketed code (`[NOT_FOUND] …` gives `NOT_FOUND`) or the failure
   * envelope's `error.code`. Absent for every other kind and for an error that names none.
   */
  readonly code?: string;
  /** A partial result's reason, from `[INCOMPLETE RESULT: reason]`. */
  readonly reason?: string;
}

const INCOMPLETE = /^\[INCOMPLETE RESULT: ([^\]\n]*)\]/;
const BRACKETED_CODE = /^\[([A-Z][A-Z0-9_]*)\]/;

/**
 * What Candor's model text (`toolResultForModel`) says at its start. Only the 15 standard codes
 * count as errors, so a tool whose output happens to start with `[INFO]` stays `ok`.
 */
function candorMarker(
  text: string,
): Pick<ClassifiedToolResult, 'kind' | 'code' | 'reason'> | undefined {
  if (text.startsWith('[DENIED]')) return { kind: 'denied' };
  const incomplete = INCOMPLETE.exec(text);
  if (incomplete !== null)
    return { kind: 'partial', reason: incomplete[1] ?? '' };
  const code = BRACKETED_CODE.exec(text)?.[1];
  if (code !== undefined && isToolErrorCode(code))
    return { kind: 'error', code };
  return undefined;
}

function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') {
    return content;
  }
  if (!Array.isArray(content)) {
    return undefined;
  }
  // Both providers accept an array of `{ type: 'text', text }` blocks as tool content.
  return content
    .map((block: unknown) =>
      typeof block === 'object' &&
      block !== null &&
      'text' in block &&
      typeof block.text === 'string'
        ? block.text
        : '',
    )
    .join('');
}

function parseJson(text: string): { readonly json?: unknown } {
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return {};
  }
}

/** The code of the failure envelope `{"error":{"code":string,"message":string,...}}`. */
function envelopeCode(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || !('error' in json)) {
    return undefined;
  }
  const { error } = json;
  return typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
    ? error.code
    : undefined;
}

/**
 * Classifies one tool result into a {@link ToolResultKind}. Pass `undefined` for a call that
 * has no result at all; that is the `missing` kind.
 *
 * @example
 * classifyToolResult({ content: '{"error":{"code":"timeout","message":"slow","retryable":true}}' }).kind;
 * // 'error'
 * classifyToolResult({ content: '[NOT_FOUND] No such file: a.txt' });
 * // { kind: 'error', code: 'NOT_FOUND', text: '[NOT_FOUND] No such file: a.txt' }
 */
export function classifyToolResult(
  result: ToolResultInput | undefined,
): ClassifiedToolResult {
  if (result === undefined) {
    return { kind: 'missing', text: undefined };
  }
  if (result.content === null || result.content === undefined) {
    return {
      kind: result.isError === true ? 'error' : 'null',
      text: undefined,
    };
  }
  const text = contentText(result.content);
  if (text === undefined) {
    // Content of an unexpected type still counts as a result; keep it visible to JSON paths.
    return {
      kind: result.isError === true ? 'error' : 'ok',
      text,
      json: result.content,
    };
  }
  const parsed = parseJson(text);
  const marker = candorMarker(text);
  if (
    marker !== undefined &&
    (marker.kind !== 'partial' || result.isError !== true)
  ) {
    return { ...marker, text, ...parsed };
  }
  const code = envelopeCode(parsed.json);
  if (result.isError === true || code !== undefined) {
    return {
      kind: 'error',
      text,
      ...parsed,
      ...(code === undefined ? {} : { code }),
    };
  }
  if (text.trim() === '') {
    return { kind: 'empty', text };
  }
  if ('json' in parsed && parsed.json === null) {
    return { kind: 'null', text, json: null };
  }
  return { kind: 'ok', text, ...parsed };
}
