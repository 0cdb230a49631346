import { describeThrown } from '@candor/errors';
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

/** A value read once into plain JSON, or why it cannot be. */
export type JsonSnapshot =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads `value` once into a plain JSON copy: each getter and Proxy trap runs once, and the copy
 * cannot change afterwards. Cycles, BigInt and throwing getters or `toJSON` give a reason instead.
 * `undefined` (and what `toJSON` turns into it) snapshots as `undefined`.
 */
export function snapshotJson(value: unknown): JsonSnapshot {
  try {
    const text: unknown = JSON.stringify(value);
    // JSON.stringify returns undefined for undefined, functions and symbols at the top.
    return {
      ok: true,
      value:
        typeof text === 'string' ? (JSON.parse(text) as unknown) : undefined,
    };
  } catch (error: unknown) {
    return { ok: false, reason: describeThrown(error) };
  }
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
  const snapshot = snapshotJson(returned);
  if (!snapshot.ok) {
    return internal(
      toolName,
      `the response cannot be serialised to JSON (${snapshot.reason})`,
    );
  }
  return checkCopy(toolName, snapshot.value);
}

function checkCopy(toolName: string, value: unknown): ToolResponse {
  if (!looksLikeToolResponse(value)) {
    return internal(
      toolName,
      `expected a ToolResponse, got ${describeKind(value)}`,
    );
  }
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
