import { isToolErrorCode, type ToolErrorCode } from '@candor/errors';
import { type JsonSchema, type ToolResponse } from '@candor/tools';

/**
 * What a served tool's `structuredContent` carries: the outcome in fields a program can branch on,
 * so status, code, retryability and a denial survive a hop through MCP.
 */
export interface OutcomeEnvelope {
  readonly status: 'success' | 'partial' | 'error';
  readonly code?: ToolErrorCode;
  readonly message?: string;
  readonly retryable?: boolean;
  readonly retryAfterMs?: number;
  /** True when an approval gate refused the call: it did not run. */
  readonly denied?: boolean;
  /** True when the caller cancelled the call. */
  readonly cancelled?: boolean;
  /** Why a partial result is incomplete. */
  readonly reason?: string;
  /** The tool's own text, for partial and error results (the content says it for the model). */
  readonly text?: string;
  readonly data?: unknown;
}

/** The envelope of one response, with only the fields that apply to it. */
export function outcomeEnvelope(response: ToolResponse): OutcomeEnvelope {
  const data =
    'data' in response && response.data !== undefined
      ? { data: response.data }
      : {};
  switch (response.status) {
    case 'success':
      return { status: 'success', ...data };
    case 'partial':
      return {
        status: 'partial',
        reason: response.reason,
        text: response.text,
        ...data,
      };
    case 'error': {
      const info = response.errorInfo;
      return {
        status: 'error',
        code: info.code,
        message: info.message,
        retryable: info.retryable,
        ...(info.retryAfterMs === undefined
          ? {}
          : { retryAfterMs: info.retryAfterMs }),
        ...(info.denied === true ? { denied: true } : {}),
        ...(info.cancelled === true ? { cancelled: true } : {}),
        ...data,
      };
    }
  }
}

/**
 * The JSON Schema of {@link OutcomeEnvelope}. With the tool's own output schema, a success must
 * carry `data` that conforms (the registry has checked it with the tool's zod schema); partial and
 * error results keep `data` open, because the registry passes on data that failed the schema as a
 * partial result, and an error's data is whatever the failure left.
 */
export function outcomeEnvelopeSchema(dataSchema?: JsonSchema): JsonSchema {
  const envelope = {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['success', 'partial', 'error'] },
      code: { type: 'string' },
      message: { type: 'string' },
      retryable: { type: 'boolean' },
      retryAfterMs: { type: 'number', minimum: 0 },
      denied: { type: 'boolean' },
      cancelled: { type: 'boolean' },
      reason: { type: 'string' },
      text: { type: 'string' },
      data: {},
    },
    required: ['status'],
  };
  if (dataSchema === undefined) return envelope;
  return {
    ...envelope,
    // The tool's schema moves under $defs, so its own references ("#", "#/$defs/…") are
    // rewritten to point where it now lives.
    $defs: { output: rebaseReferences(dataSchema, '#/$defs/output') },
    if: { properties: { status: { const: 'success' } } },
    then: { properties: { data: { $ref: '#/$defs/output' } } },
  };
}

function rebaseReferences(schema: unknown, base: string): unknown {
  if (Array.isArray(schema))
    return schema.map((item) => rebaseReferences(item, base));
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#')
        ? `${base}${value.slice(1)}`
        : rebaseReferences(value, base),
    ]),
  );
}

/**
 * Reads an envelope back, or `undefined` when `value` is not one (a foreign server's data, or a
 * status word Candor does not know). An error envelope whose `code` is not a Candor code is read
 * without one.
 */
export function readOutcomeEnvelope(
  value: unknown,
): OutcomeEnvelope | undefined {
  const claim = readOutcomeClaim(value);
  return claim.kind === 'envelope' ? claim.envelope : undefined;
}

const MAX_CODE_CHARS = 100;

/** What a `structuredContent` says about the outcome, each field read once. */
export type OutcomeClaim =
  /** Not an object with a string `status`: a foreign server's own data. */
  | { readonly kind: 'none' }
  /** `status` is a word Candor does not know: the outcome is unknown, never success. */
  | { readonly kind: 'unrecognised'; readonly status: string }
  | {
      readonly kind: 'envelope';
      readonly envelope: OutcomeEnvelope;
      /** A `code` that is not a Candor code, kept so the caller can say what the server said. */
      readonly foreignCode?: string;
      /**
       * True when the object has fields an envelope does not name (`{ status: 'success', rows }`):
       * a foreign server's own data, which the caller keeps whole instead of only `data`.
       */
      readonly foreignFields: boolean;
    };

const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  'status',
  'code',
  'message',
  'retryable',
  'retryAfterMs',
  'denied',
  'cancelled',
  'reason',
  'text',
  'data',
]);

/**
 * Reads what `value` claims, each field once: an in-process link can hand over a live object, so
 * each named field is one `get` and the key list one `ownKeys`, and everything after reads the
 * values read. A getter or trap that throws is the caller's to catch (`responseFromMcp` answers
 * INTERNAL_ERROR).
 */
export function readOutcomeClaim(value: unknown): OutcomeClaim {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { kind: 'none' };
  const record = value as Record<string, unknown>;
  const status = record['status'];
  if (typeof status !== 'string') return { kind: 'none' };
  if (status !== 'success' && status !== 'partial' && status !== 'error')
    return { kind: 'unrecognised', status };
  const code = record['code'];
  const strings: Record<string, string> = {};
  for (const key of ['message', 'reason', 'text']) {
    const value = record[key];
    if (typeof value === 'string') strings[key] = value;
  }
  const retryable = record['retryable'];
  const retryAfterMs = record['retryAfterMs'];
  const denied = record['denied'];
  const cancelled = record['cancelled'];
  const data = record['data'];
  const keys = Object.keys(record);
  const envelope: OutcomeEnvelope = {
    status,
    ...(isToolErrorCode(code) ? { code } : {}),
    ...strings,
    ...(typeof retryable === 'boolean' ? { retryable } : {}),
    ...(typeof retryAfterMs === 'number' &&
    Number.isFinite(retryAfterMs) &&
    retryAfterMs >= 0
      ? { retryAfterMs }
      : {}),
    ...(denied === true ? { denied: true } : {}),
    ...(cancelled === true ? { cancelled: true } : {}),
    // Given when read as a value or listed as a key (`data: undefined` still says "no data").
    ...(data !== undefined || keys.includes('data') ? { data } : {}),
  };
  const foreignFields = keys.some((key) => !ENVELOPE_KEYS.has(key));
  return typeof code === 'string' && !isToolErrorCode(code)
    ? // A code word is short; a hostile server's megabyte "code" is cut, not repeated.
      {
        kind: 'envelope',
        envelope,
        foreignCode: code.slice(0, MAX_CODE_CHARS),
        foreignFields,
      }
    : { kind: 'envelope', envelope, foreignFields };
}
