import { allToolErrorCodes, type ToolErrorCode } from '@candor/errors';
import { z } from 'zod';
import { ToolProtocolError } from './tool-protocol-error.ts';
import { type ToolResponse } from './tool-response.ts';
import { requireZod4 } from './require-zod-4.ts';

// Before the first schema below: with zod 3 it would fail with a message that names no version.
requireZod4();

const statsSchema = z
  .looseObject({ timeMs: z.number().min(0) })
  .catchall(z.number());

const contextSchema = z.looseObject({
  toolName: z.string().optional(),
  callId: z.string().optional(),
  params: z.unknown().optional(),
});

const errorInfoSchema = z
  .looseObject({
    code: z.enum(allToolErrorCodes as [ToolErrorCode, ...ToolErrorCode[]]),
    message: z.string().min(1),
    retryable: z.boolean(),
    retryAfterMs: z.number().min(0).optional(),
    details: z.record(z.string(), z.unknown()).optional(),
    cancelled: z.boolean().optional(),
    denied: z.boolean().optional(),
  })
  .refine((info) => info.denied !== true || info.code === 'ACCESS_DENIED', {
    error: 'denied is only valid with code ACCESS_DENIED',
    path: ['denied'],
  });

const shared = {
  text: z.string(),
  data: z.unknown().optional(),
  stats: statsSchema,
  context: contextSchema.optional(),
};

// A success or partial carrying errorInfo contradicts itself, so it is rejected, not ignored.
const noErrorInfo = z.undefined({
  error: 'errorInfo is only allowed when status is "error"',
});

/**
 * The wire form of a `ToolResponse`. Unknown extra keys are kept, so a newer producer's fields
 * are never silently dropped.
 */
export const toolResponseSchema = z.discriminatedUnion('status', [
  z.looseObject({
    status: z.literal('success'),
    ...shared,
    errorInfo: noErrorInfo.optional(),
  }),
  z.looseObject({
    status: z.literal('partial'),
    ...shared,
    reason: z.string().min(1),
    errorInfo: noErrorInfo.optional(),
  }),
  z.looseObject({
    status: z.literal('error'),
    ...shared,
    errorInfo: errorInfoSchema,
  }),
]);

function describeIssues(error: z.ZodError): { field: string; message: string } {
  const first = error.issues[0];
  const field = first ? first.path.map(String).join('.') : '';
  const all = error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const message =
        issue.code === 'invalid_union' && path === 'status'
          ? 'expected "success", "partial" or "error"'
          : issue.message;
      return `${path === '' ? '(root)' : path}: ${message}`;
    })
    .join('; ');
  return { field, message: `Invalid ToolResponse: ${all}` };
}

/** The outcome of `ToolResponse.safeParse`. */
export type SafeParseToolResponse =
  | { readonly success: true; readonly response: ToolResponse }
  | { readonly success: false; readonly error: ToolProtocolError };

/** Validates a value against the wire form without throwing. */
export function safeParseToolResponse(value: unknown): SafeParseToolResponse {
  const parsed = toolResponseSchema.safeParse(value);
  if (parsed.success) {
    return { success: true, response: parsed.data as ToolResponse };
  }
  const { field, message } = describeIssues(parsed.error);
  return {
    success: false,
    error: new ToolProtocolError({ field, message, cause: parsed.error }),
  };
}

/** Validates a value against the wire form; throws a {@link ToolProtocolError} naming the field. */
export function parseToolResponse(value: unknown): ToolResponse {
  const result = safeParseToolResponse(value);
  if (!result.success) throw result.error;
  return result.response;
}

/** Parses the JSON text of a response, naming the field at fault when it is invalid. */
export function toolResponseFromJSON(json: string): ToolResponse {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error: unknown) {
    throw new ToolProtocolError({
      field: '',
      message: `Invalid ToolResponse: not valid JSON (${error instanceof Error ? error.message : 'unparseable'})`,
      cause: error,
    });
  }
  return parseToolResponse(value);
}

/** Serialises a response after validating it; non-JSON data is a clear error, not a lost field. */
export function toolResponseToJSON(response: ToolResponse): string {
  const valid = parseToolResponse(response);
  try {
    return JSON.stringify(valid);
  } catch (error: unknown) {
    throw new ToolProtocolError({
      field: 'data',
      message: `ToolResponse cannot be serialised to JSON: ${error instanceof Error ? error.message : 'unknown reason'}`,
      cause: error,
    });
  }
}
