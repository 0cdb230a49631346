import { z } from 'zod';
import { type AnyToolDefinition } from './define-tool.ts';
import { ToolProtocolError } from './tool-protocol-error.ts';

/** A JSON Schema object, as providers receive it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** An OpenAI Chat Completions function tool. */
export interface OpenAIToolSpec {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
  };
}

/** An Anthropic Messages tool. */
export interface AnthropicToolSpec {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonSchema;
}

const cache = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON Schema of a tool's input, as the model must produce it (zod's input side: before
 * defaults and transforms). Providers require an object at the top.
 */
export function toolInputJsonSchema(tool: AnyToolDefinition): JsonSchema {
  const cached = cache.get(tool.input);
  if (cached) return cached;
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(tool.input, {
      io: 'input',
      unrepresentable: 'throw',
    });
  } catch (error: unknown) {
    throw new ToolProtocolError({
      field: 'input',
      message: `tool "${tool.name}": its input schema cannot be expressed as JSON Schema (${error instanceof Error ? error.message : 'unknown reason'})`,
      cause: error,
    });
  }
  if (schema['type'] !== 'object') {
    throw new ToolProtocolError({
      field: 'input',
      message: `tool "${tool.name}": providers need an object input schema (z.object), got ${JSON.stringify(schema['type'] ?? 'a non-object schema')}`,
    });
  }
  const { $schema: _dialect, ...withoutDialect } = schema;
  const frozen = Object.freeze(withoutDialect);
  cache.set(tool.input, frozen);
  return frozen;
}

const outputCache = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON Schema of a tool's `output` (the `data` of its success and partial responses, zod's
 * output side), or `undefined` when the tool declares none. Parts JSON Schema cannot express
 * (a transform's result, a custom check) are left open rather than refused: the registry still
 * checks the zod schema itself, so a looser JSON Schema never lets wrong data through it.
 */
export function toolOutputJsonSchema(
  tool: AnyToolDefinition,
): JsonSchema | undefined {
  const output = tool.output;
  if (output === undefined) return undefined;
  const cached = outputCache.get(output);
  if (cached) return cached;
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(output, { io: 'output', unrepresentable: 'any' });
  } catch {
    // Open, as for any part JSON Schema cannot express: the zod schema still decides.
    schema = {};
  }
  const { $schema: _dialect, ...withoutDialect } = schema;
  const frozen = Object.freeze(withoutDialect);
  outputCache.set(output, frozen);
  return frozen;
}

/** The tool as an OpenAI (and OpenAI-compatible) function spec. */
export function toOpenAITool(tool: AnyToolDefinition): OpenAIToolSpec {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: toolInputJsonSchema(tool),
    },
  };
}

/** The tool as an Anthropic tool spec. */
export function toAnthropicTool(tool: AnyToolDefinition): AnthropicToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: toolInputJsonSchema(tool),
  };
}
