import {
  type AnyToolDefinition,
  defineTool,
  TOOL_NAME_PATTERN,
  ToolProtocolError,
} from '@candor/tools';
import { z } from 'zod';
import { normaliseLegacy } from './normalise-response.ts';
import {
  type PlainToolFunction,
  type RegisterFunctionOptions,
} from './registry-types.ts';

const ANY_OBJECT = z.looseObject({});

/**
 * A plain function as a tool: its name checked, any JSON object accepted unless it gives a
 * schema, and whatever it returns or throws normalised as a legacy result.
 */
export function wrapFunction(
  fn: PlainToolFunction,
  options: RegisterFunctionOptions,
): AnyToolDefinition {
  if (typeof fn !== 'function') {
    throw new ToolProtocolError({
      field: '',
      message:
        'ToolRegistry.register: expected a defineTool() tool or a function',
    });
  }
  const name = options.name ?? fn.name;
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new ToolProtocolError({
      field: 'name',
      message: `ToolRegistry.register: invalid tool name ${JSON.stringify(name)}; give { name } with 1 to 64 characters of a-z, A-Z, 0-9, _ and -`,
    });
  }
  return defineTool({
    name,
    description:
      options.description ?? `Legacy tool ${name} (auto-wrapped function).`,
    input: options.input ?? ANY_OBJECT,
    run: async (input, context) =>
      normaliseLegacy(name, await fn(input as never, context)),
  });
}
