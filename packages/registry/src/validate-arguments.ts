import { describeThrown } from '@candor/errors';
import { ToolResponse as Responses } from '@candor/tools';
import { z } from 'zod';
import { type ParsedArguments } from './decode-arguments.ts';

const MAX_ISSUES = 10;

function describeIssue(issue: z.core.$ZodIssue): {
  path: string;
  message: string;
} {
  const path = issue.path.map(String).join('.');
  return { path, message: issue.message };
}

// Schemas seen to need an async parse (async refinements or transforms): they go straight to
// safeParseAsync, so their sync checks run once per call, not twice.
const asyncSchemas = new WeakSet<z.ZodType>();

/**
 * Validates decoded arguments against the tool's schema. Failures name each field and what is
 * wrong with it, never the values themselves. Arguments whose reads throw are invalid too.
 * Synchronous schemas (nearly all) answer synchronously, with no promise and no microtask; a
 * schema with async refinements gives a promise.
 */
export function validateArguments(
  schema: z.ZodType,
  decoded: ParsedArguments,
): ParsedArguments | Promise<ParsedArguments> {
  if (!decoded.ok) return decoded;
  if (asyncSchemas.has(schema)) return validateAsync(schema, decoded.value);
  let result: z.ZodSafeParseResult<unknown>;
  try {
    result = schema.safeParse(decoded.value);
  } catch (error: unknown) {
    // zod throws when a sync parse meets an async check. Any other throw is retried the same
    // way, so a schema from another copy of zod (another error class) is never misjudged; only
    // this copy's error is remembered.
    if (error instanceof z.core.$ZodAsyncError) asyncSchemas.add(schema);
    return validateAsync(schema, decoded.value);
  }
  return checked(result);
}

async function validateAsync(
  schema: z.ZodType,
  value: unknown,
): Promise<ParsedArguments> {
  let result: z.ZodSafeParseResult<unknown>;
  try {
    result = await schema.safeParseAsync(value);
  } catch (error: unknown) {
    return {
      ok: false,
      response: Responses.error(
        'INVALID_PARAM',
        `The arguments could not be read (${describeThrown(error)}). Send a JSON object that matches the tool's schema.`,
      ),
    };
  }
  return checked(result);
}

function checked(result: z.ZodSafeParseResult<unknown>): ParsedArguments {
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues.slice(0, MAX_ISSUES).map(describeIssue);
  const summary = issues
    .map(({ path, message }) => (path === '' ? message : `${path}: ${message}`))
    .join('; ');
  const more =
    result.error.issues.length > MAX_ISSUES
      ? ` (and ${result.error.issues.length - MAX_ISSUES} more)`
      : '';
  return {
    ok: false,
    response: Responses.error(
      'INVALID_PARAM',
      `Invalid arguments: ${summary}${more}. Fix them and call again.`,
      {
        details: { issues },
      },
    ),
  };
}
