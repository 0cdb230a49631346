import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.ts';
import { toolOutputJsonSchema } from './provider-specs.ts';
import { ToolResponse } from './tool-response.ts';

const tool = (output?: z.ZodType) =>
  defineTool({
    name: 'shaped',
    description: 'Has an output schema, or not',
    input: z.object({}),
    ...(output === undefined ? {} : { output }),
    run: () => ToolResponse.success('ok'),
  });

describe('toolOutputJsonSchema', () => {
  it('is undefined for a tool without an output schema', () => {
    expect(toolOutputJsonSchema(tool())).toBeUndefined();
  });

  it('gives the output side of the zod schema, without a $schema dialect', () => {
    const schema = toolOutputJsonSchema(
      tool(z.object({ n: z.number().default(1), tags: z.array(z.string()) })),
    );
    expect(schema).toEqual({
      type: 'object',
      properties: {
        n: { type: 'number', default: 1 },
        tags: { type: 'array', items: { type: 'string' } },
      },
      // Output side: a defaulted field is always present in the data.
      required: ['n', 'tags'],
      additionalProperties: false,
    });
    expect(Object.isFrozen(schema)).toBe(true);
  });

  it('leaves what JSON Schema cannot express open instead of throwing', () => {
    const schema = toolOutputJsonSchema(
      tool(z.object({ when: z.date(), id: z.string() })),
    );
    expect(schema).toMatchObject({
      type: 'object',
      properties: { when: {}, id: { type: 'string' } },
    });
  });

  it('keeps a recursive schema as references', () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const node: z.ZodType<Node> = z.object({
      name: z.string(),
      get children() {
        return z.array(node);
      },
    });
    expect(JSON.stringify(toolOutputJsonSchema(tool(node)))).toContain(
      '"$ref"',
    );
  });
});
