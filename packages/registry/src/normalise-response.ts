import { type ToolResponse, ToolResponse as Responses } from '@candor/tools';

const STATUSES: ReadonlySet<unknown> = new Set(['success', 'partial', 'error']);

/** True when a returned value claims to be a `ToolResponse` and must be validated as one. */
export function looksLikeToolResponse(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    const candidate = value as Record<string, unknown>;
    return STATUSES.has(candidate['status']) && 'text' in candidate;
  } catch {
    return false;
  }
}

function internal(toolName: string, problem: string): ToolResponse {
  return Responses.error(
    'INTERNAL_ERROR',
    `Tool "${toolName}" returned an invalid result: ${problem}`,
  );
}

/**
 * A structured tool's return value, checked against the protocol. Anything that is not a valid
 * `ToolResponse` becomes INTERNAL_ERROR naming what was wrong.
 */
export function normaliseStructured(
  toolName: string,
  value: unknown,
): ToolResponse {
  if (!looksLikeToolResponse(value)) {
    const kind =
      value === null
        ? 'null'
        : Array.isArray(value)
          ? 'an array'
          : `a ${typeof value}`;
    return internal(toolName, `expected a ToolResponse, got ${kind}`);
  }
  const parsed = Responses.safeParse(value);
  return parsed.success
    ? (value as ToolResponse)
    : internal(toolName, parsed.error.message);
}

/**
 * A legacy function's return value as a response. A returned string is a success with that text:
 * it is never scanned for "Error:", because a function that returns normally succeeded.
 */
export function normaliseLegacy(
  toolName: string,
  value: unknown,
): ToolResponse {
  if (looksLikeToolResponse(value)) return normaliseStructured(toolName, value);
  switch (typeof value) {
    case 'string':
      return Responses.success(value);
    case 'undefined':
      return Responses.success('The tool finished and returned no value.');
    case 'number':
    case 'boolean':
      return Responses.success(String(value), { data: value });
    case 'bigint':
      return Responses.success(value.toString(), { data: value.toString() });
    case 'function':
    case 'symbol':
      return internal(toolName, `a ${typeof value} cannot be sent to a model`);
    case 'object': {
      if (value === null)
        return Responses.success('The tool returned null.', { data: null });
      let text: string | undefined;
      try {
        text = JSON.stringify(value);
      } catch (error: unknown) {
        const reason =
          error instanceof Error ? error.message : 'not serialisable';
        return internal(
          toolName,
          `the returned value cannot be serialised to JSON (${reason})`,
        );
      }
      return Responses.success(text, { data: value });
    }
  }
}
