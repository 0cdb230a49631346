const MAX_SUMMARY_CHARS = 300;

interface Issue {
  readonly path?: readonly (string | number)[];
  readonly message?: string;
  readonly errors?: readonly (readonly Issue[])[];
}

/**
 * A short account of zod issues for the model: the first issue (inside a union, the first
 * member's first issue) and how many more there were, at most 300 characters, where the SDK's
 * own message holds the whole issue dump (kilobytes for one bad content block).
 */
export function summariseIssues(issues: readonly unknown[]): string {
  const [first] = issues as readonly Issue[];
  if (first === undefined) return 'it does not match the schema';
  let shown: Issue = first;
  let union = false;
  while (shown.errors?.[0]?.[0] !== undefined) {
    union = true;
    shown = shown.errors[0][0];
  }
  const path = [...(first.path ?? []), ...(union ? (shown.path ?? []) : [])];
  const where = path.length === 0 ? 'the result' : path.join('.');
  const rest = issues.length - 1;
  const text = `${where}: ${shown.message ?? 'invalid'}${
    union ? ' (no variant matched)' : ''
  }${rest > 0 ? `, and ${rest} more issue${rest === 1 ? '' : 's'}` : ''}`;
  return text.length <= MAX_SUMMARY_CHARS
    ? text
    : `${text.slice(0, MAX_SUMMARY_CHARS - 1)}…`;
}

/**
 * The zod issues in an SDK message such as `Invalid result for tools/call: [ …issues… ]`, or
 * undefined when it holds none.
 */
export function issuesInMessage(message: string): unknown[] | undefined {
  const start = message.indexOf('[');
  if (start === -1) return undefined;
  try {
    const parsed: unknown = JSON.parse(message.slice(start));
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
