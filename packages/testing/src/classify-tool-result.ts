/**
 * The kinds a tool result can have, as the script model sees them:
 * - `ok`: a result with content;
 * - `null`: the result exists but its content is `null`, absent, or the JSON text `null`;
 * - `empty`: the content is `""`, whitespace, `[]` or text blocks with no text;
 * - `missing`: the model called the tool but no result for that call id was sent;
 * - `error`: the content is the failure envelope `{"error":{"code","message","retryable"}}`,
 *   or the provider's own error flag (Anthropic `is_error: true`) is set.
 */
export const toolResultKinds = [
  'ok',
  'null',
  'empty',
  'missing',
  'error',
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

/** True for the failure envelope `{"error":{"code":string,"message":string,...}}`. */
function isFailureEnvelope(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || !('error' in json)) {
    return false;
  }
  const { error } = json;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
  );
}

/**
 * Classifies one tool result into a {@link ToolResultKind}. Pass `undefined` for a call that
 * has no result at all; that is the `missing` kind.
 *
 * @example
 * classifyToolResult({ content: '{"error":{"code":"timeout","message":"slow","retryable":true}}' }).kind;
 * // 'error'
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
  if (result.isError === true || isFailureEnvelope(parsed.json)) {
    return { kind: 'error', text, ...parsed };
  }
  if (text.trim() === '') {
    return { kind: 'empty', text };
  }
  if ('json' in parsed && parsed.json === null) {
    return { kind: 'null', text, json: null };
  }
  return { kind: 'ok', text, ...parsed };
}
