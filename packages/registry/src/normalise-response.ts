import {
  assembleFields,
  type FieldBounds,
  isToolErrorCode,
  snapshotFields,
  snapshotJson,
} from '@candor/errors';
import {
  type ErrorInfo,
  type ToolContext,
  type ToolResponse,
  ToolResponse as Responses,
  type ToolStats,
} from '@candor/tools';

const STATUSES: ReadonlySet<unknown> = new Set(['success', 'partial', 'error']);

/** Whether `name` is a field the wire schema names in a response. */
function isResponseField(name: string): boolean {
  switch (name) {
    case 'status':
    case 'text':
    case 'data':
    case 'stats':
    case 'context':
    case 'reason':
    case 'errorInfo':
      return true;
    default:
      return false;
  }
}

/**
 * How a response is read field by field: each field the wire schema names has a budget of its own
 * (a large `data` cannot cut `stats` away), and a string `text` is left out of the budget, because
 * `maxResultChars` cuts it later, keeping its head and tail.
 */
export const responseFields: FieldBounds = Object.freeze({
  ownBudget: isResponseField,
  unbudgeted: 'text',
});

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

function describeKind(value: unknown): string {
  return value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : `a ${typeof value}`;
}

/**
 * A structured tool's return value, checked against the protocol. The value is read once into a
 * JSON copy; only the copy is validated and returned, so a getter that changes or throws on a
 * later read cannot reach past this point. Anything that is not a valid, JSON-safe
 * `ToolResponse` becomes INTERNAL_ERROR naming what was wrong.
 */
export function normaliseStructured(
  toolName: string,
  returned: unknown,
): ToolResponse {
  if (typeof returned !== 'object' || returned === null) {
    return internal(
      toolName,
      `expected a ToolResponse, got ${describeKind(returned)}`,
    );
  }
  const snapshot = snapshotFields(returned, responseFields);
  if (!snapshot.ok) {
    return internal(
      toolName,
      `the response cannot be serialised to JSON (${snapshot.reason})`,
    );
  }
  if (!('keys' in snapshot)) return checkCopy(toolName, snapshot.value);
  // Most responses come from the factories: only named, well-typed fields, read into one of a
  // few fixed shapes, with no general copy to check again.
  return (
    fromFields(snapshot.keys, snapshot.values) ??
    checkCopy(toolName, assembleFields(snapshot.keys, snapshot.values))
  );
}

/**
 * The response the copied fields make, when they are only the fields the wire schema names and
 * each is well-typed: what {@link wellFormed} accepts of the same copy, built in one object
 * literal per shape. `undefined` leaves the copy to `wellFormed` and the schema.
 */
function fromFields(
  keys: readonly string[],
  values: readonly unknown[],
): ToolResponse | undefined {
  let status: unknown;
  let text: unknown;
  let data: unknown;
  let hasData = false;
  let stats: unknown;
  let context: unknown;
  let reason: unknown;
  let errorInfo: unknown;
  let index = 0;
  for (const key of keys) {
    const value = values[index];
    index += 1;
    switch (key) {
      case 'status':
        status = value;
        break;
      case 'text':
        text = value;
        break;
      case 'data':
        data = value;
        hasData = true;
        break;
      case 'stats':
        stats = value;
        break;
      case 'context':
        context = value;
        break;
      case 'reason':
        reason = value;
        break;
      case 'errorInfo':
        errorInfo = value;
        break;
      default:
        return undefined;
    }
  }
  if (typeof text !== 'string' || !isStats(stats)) return undefined;
  if (context !== undefined && !isContext(context)) return undefined;
  const shape = stats as ToolStats;
  const where = context as ToolContext | undefined;
  // One literal per combination of optional fields, in the wire schema's order.
  switch (status) {
    case 'success':
      if (reason !== undefined || errorInfo !== undefined) return undefined;
      if (hasData) {
        return where === undefined
          ? { status, text, data, stats: shape }
          : { status, text, data, stats: shape, context: where };
      }
      return where === undefined
        ? { status, text, stats: shape }
        : { status, text, stats: shape, context: where };
    case 'partial':
      if (errorInfo !== undefined) return undefined;
      if (typeof reason !== 'string' || reason === '') return undefined;
      if (hasData) {
        return where === undefined
          ? { status, text, data, stats: shape, reason }
          : { status, text, data, stats: shape, context: where, reason };
      }
      return where === undefined
        ? { status, text, stats: shape, reason }
        : { status, text, stats: shape, context: where, reason };
    case 'error': {
      if (reason !== undefined || !isErrorInfo(errorInfo)) return undefined;
      const info = errorInfo as ErrorInfo;
      if (hasData) {
        return where === undefined
          ? { status, text, data, stats: shape, errorInfo: info }
          : {
              status,
              text,
              data,
              stats: shape,
              context: where,
              errorInfo: info,
            };
      }
      return where === undefined
        ? { status, text, stats: shape, errorInfo: info }
        : { status, text, stats: shape, context: where, errorInfo: info };
    }
    default:
      return undefined;
  }
}

function checkCopy(toolName: string, value: unknown): ToolResponse {
  if (!looksLikeToolResponse(value)) {
    return internal(
      toolName,
      `expected a ToolResponse, got ${describeKind(value)}`,
    );
  }
  const checked = wellFormed(value);
  if (checked !== undefined) return checked;
  const parsed = Responses.safeParse(value);
  return parsed.success
    ? parsed.response
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
  switch (typeof value) {
    case 'string':
      return Responses.success(value);
    case 'undefined':
      return Responses.success('The tool finished and returned no value.');
    case 'number':
      // NaN and Infinity are not JSON: they travel as text only.
      return Number.isFinite(value)
        ? Responses.success(String(value), { data: value })
        : Responses.success(String(value), { data: String(value) });
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
      const snapshot = snapshotJson(value);
      if (!snapshot.ok) {
        return internal(
          toolName,
          `the returned value cannot be serialised to JSON (${snapshot.reason})`,
        );
      }
      const copy = snapshot.value;
      if (looksLikeToolResponse(copy)) return checkCopy(toolName, copy);
      if (copy === undefined) {
        return Responses.success('The tool finished and returned no value.');
      }
      return Responses.success(JSON.stringify(copy), { data: copy });
    }
  }
}

type JsonRecord = Record<string, unknown>;

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStats(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const timeMs = value['timeMs'];
  if (typeof timeMs !== 'number' || timeMs < 0) return false;
  for (const key in value) {
    if (typeof value[key] !== 'number') return false;
  }
  return true;
}

function isContext(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { toolName, callId } = value;
  return (
    (toolName === undefined || typeof toolName === 'string') &&
    (callId === undefined || typeof callId === 'string')
  );
}

function isErrorInfo(value: unknown): boolean {
  if (!isRecord(value)) return false;
  let known = 3;
  const { code, message, retryable } = value;
  if (
    !isToolErrorCode(code) ||
    typeof message !== 'string' ||
    message === '' ||
    typeof retryable !== 'boolean'
  ) {
    return false;
  }
  const { retryAfterMs, details, cancelled, denied } = value;
  if (retryAfterMs !== undefined) {
    if (typeof retryAfterMs !== 'number' || retryAfterMs < 0) return false;
    known += 1;
  }
  if (details !== undefined) {
    if (!isRecord(details)) return false;
    known += 1;
  }
  if (cancelled !== undefined) {
    if (typeof cancelled !== 'boolean') return false;
    known += 1;
  }
  if (denied !== undefined) {
    if (typeof denied !== 'boolean') return false;
    if (denied && code !== 'ACCESS_DENIED') return false;
    known += 1;
  }
  return Object.keys(value).length === known;
}

/**
 * The copy as a response, when it has only the fields the wire schema names and each is
 * well-typed; `undefined` sends it to the schema itself, which also keeps unknown keys and says
 * what is wrong. A JSON copy has no `undefined` values, so a key that is there has a value.
 * The schema (`toolResponseSchema` in `@candor/tools`) stays the one definition: this only
 * accepts a subset of what it accepts, and `normalise-response.test.ts` holds the two together.
 */
export function wellFormed(value: unknown): ToolResponse | undefined {
  if (!isRecord(value)) return undefined;
  const { status, text, stats, context } = value;
  if (typeof text !== 'string' || !isStats(stats)) return undefined;
  let known = 3;
  if ('data' in value) known += 1;
  if (context !== undefined) {
    if (!isContext(context)) return undefined;
    known += 1;
  }
  switch (status) {
    case 'success':
      break;
    case 'partial': {
      const reason = value['reason'];
      if (typeof reason !== 'string' || reason === '') return undefined;
      known += 1;
      break;
    }
    case 'error':
      if (!isErrorInfo(value['errorInfo'])) return undefined;
      known += 1;
      break;
    default:
      return undefined;
  }
  return Object.keys(value).length === known
    ? (value as unknown as ToolResponse)
    : undefined;
}
