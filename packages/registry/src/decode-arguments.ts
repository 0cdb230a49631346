import { type ToolResponse, ToolResponse as Responses } from '@candor/tools';

/** The outcome of {@link decodeArguments} and of `validateArguments`: the value, or the response for the model. */
export type ParsedArguments =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly response: ToolResponse };

/**
 * Argument decoding: the arguments decoded once, a JSON string parsed, anything else taken as it
 * is. Context, logs and validation all read this one decoding.
 */
export function decodeArguments(args: unknown): ParsedArguments {
  if (args === undefined || (typeof args === 'string' && args.trim() === '')) {
    return { ok: true, value: {} };
  }
  if (typeof args !== 'string') return { ok: true, value: args };
  try {
    return { ok: true, value: JSON.parse(args) as unknown };
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : 'unparseable';
    return {
      ok: false,
      response: Responses.error(
        'INVALID_FORMAT',
        `The arguments are not valid JSON (${reason}). Send a JSON object that matches the tool's schema.`,
      ),
    };
  }
}
