import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.ts';
import { ToolResponse } from './tool-response.ts';
import { toolOutputJsonSchema, toolSpec } from './tool-spec.ts';

const run = () => ToolResponse.success('ok');

describe('toolSpec: one provider-neutral form', () => {
  it('has the name, description, input schema and idempotence, and no provider keys', () => {
    const tool = defineTool({
      name: 'lookup',
      description: 'Look a word up',
      input: z.object({ word: z.string(), limit: z.number().default(3) }),
      idempotent: true,
      run,
    });
    const spec = toolSpec(tool);
    expect(spec).toEqual({
      name: 'lookup',
      description: 'Look a word up',
      inputSchema: {
        type: 'object',
        properties: {
          word: { type: 'string' },
          limit: { type: 'number', default: 3 },
        },
        required: ['word'],
      },
      idempotent: true,
    });
    for (const key of ['type', 'function', 'input_schema', 'parameters']) {
      expect(spec).not.toHaveProperty(key);
    }
  });

  it("carries the output schema's output side when the tool declares one", () => {
    const tool = defineTool({
      name: 'count',
      description: 'Count',
      input: z.object({}),
      output: z.object({ n: z.number().default(0) }),
      run: () => ToolResponse.success('', { data: { n: 1 } }),
    });
    expect(toolSpec(tool).outputSchema).toEqual({
      type: 'object',
      properties: { n: { type: 'number', default: 0 } },
      required: ['n'],
      additionalProperties: false,
    });
    expect(toolSpec(tool).idempotent).toBe(false);
  });

  it('leaves the output schema out when JSON Schema cannot express it, and asks zod once', () => {
    const output = z.object({ at: z.date() });
    const tool = defineTool({
      name: 'when',
      description: 'When',
      input: z.object({}),
      output,
      run,
    });
    expect(toolSpec(tool)).not.toHaveProperty('outputSchema');
    expect(toolOutputJsonSchema(tool)).toBeUndefined();
    // The same schema object answers from the cache: identical (frozen) results.
    const plain = defineTool({
      name: 'plain',
      description: 'Plain',
      input: z.object({}),
      output: z.object({ a: z.string() }),
      run,
    });
    expect(toolOutputJsonSchema(plain)).toBe(toolOutputJsonSchema(plain));
    expect(Object.isFrozen(toolOutputJsonSchema(plain))).toBe(true);
  });
});
