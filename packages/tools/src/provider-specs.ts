// Provider shapes are the wires' business now (each wire in @candor/core converts a ToolSpec).
// These stay for one minor version so code written against them keeps working.
/* eslint-disable @typescript-eslint/no-deprecated -- this file is the deprecated surface */
import { type AnyToolDefinition } from './define-tool.ts';
import { type JsonSchema, toolInputJsonSchema } from './tool-spec.ts';

/**
 * An OpenAI Chat Completions function tool.
 * @deprecated Use `registry.specs()` (provider-neutral `ToolSpec`); each model wire converts it.
 * Removed in the next minor version.
 */
export interface OpenAIToolSpec {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
  };
}

/**
 * An Anthropic Messages tool.
 * @deprecated Use `registry.specs()` (provider-neutral `ToolSpec`); each model wire converts it.
 * Removed in the next minor version.
 */
export interface AnthropicToolSpec {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonSchema;
}

/**
 * The tool as an OpenAI (and OpenAI-compatible) function spec.
 * @deprecated Use `toolSpec(tool)`; the OpenAI-compatible wire converts it. Removed in the next
 * minor version.
 */
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

/**
 * The tool as an Anthropic tool spec.
 * @deprecated Use `toolSpec(tool)`; the Anthropic wire converts it. Removed in the next minor
 * version.
 */
export function toAnthropicTool(tool: AnyToolDefinition): AnthropicToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: toolInputJsonSchema(tool),
  };
}
