import { z } from 'zod';
import { type AnyToolDefinition } from './define-tool.ts';
import { ToolProtocolError } from './tool-protocol-error.ts';

/** A JSON Schema object, as providers receive it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * A tool as every surface lists it, in no provider's shape: each model wire, MCP server or
 * framework adapter converts this one form to its own.
 */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** The input the model must produce (zod's input side: before defaults and transforms). */
  readonly inputSchema: JsonSchema;
  /**
   * The JSON Schema of the tool's `data` on success, when the tool declares an `output` schema
   * that JSON Schema can express; absent otherwise.
   */
  readonly outputSchema?: JsonSchema;
  /** True when running the tool twice has the same effect as once (`defineTool`'s `idempotent`). */
  readonly idempotent: boolean;
}

const inputCache = new WeakMap<z.ZodType, JsonSchema>();
// `null` remembers an output schema JSON Schema cannot express, so it is tried once.
const outputCache = new WeakMap<z.ZodType, JsonSchema | null>();

function withoutDialect(schema: Record<string, unknown>): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return Object.freeze(rest);
}

/**
 * The JSON Schema of a tool's input, as the model must produce it (zod's input side: before
 * defaults and transforms). Providers require an object at the top.
 */
export function toolInputJsonSchema(tool: AnyToolDefinition): JsonSchema {
  const cached = inputCache.get(tool.input);
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
  const frozen = withoutDialect(schema);
  inputCache.set(tool.input, frozen);
  return frozen;
}

/**
 * The JSON Schema of a tool's `data` (zod's output side), or `undefined` when the tool declares no
 * `output` or JSON Schema cannot express it (a `z.date()`, a transform): the registry still
 * validates the data with zod either way.
 */
export function toolOutputJsonSchema(
  tool: AnyToolDefinition,
): JsonSchema | undefined {
  const output = tool.output;
  if (output === undefined) return undefined;
  const cached = outputCache.get(output);
  if (cached !== undefined) return cached ?? undefined;
  let schema: JsonSchema | null;
  try {
    schema = withoutDialect(
      z.toJSONSchema(output, { io: 'output', unrepresentable: 'throw' }),
    );
  } catch {
    schema = null;
  }
  outputCache.set(output, schema);
  return schema ?? undefined;
}

/** The provider-neutral spec of a tool. */
export function toolSpec(tool: AnyToolDefinition): ToolSpec {
  const outputSchema = toolOutputJsonSchema(tool);
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: toolInputJsonSchema(tool),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    idempotent: tool.idempotent === true,
  };
}
