import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, isToolDefinition } from './define-tool.ts';
import { toAnthropicTool, toOpenAITool } from './provider-specs.ts';
import { toolInputJsonSchema } from './tool-spec.ts';
import { ToolResponse } from './tool-response.ts';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({
    a: z.number().describe('first'),
    b: z.number().default(0),
  }),
  run: ({ a, b }) => ToolResponse.success(String(a + b), { data: a + b }),
});

describe('defineTool', () => {
  it('returns a frozen, recognisable definition that runs', async () => {
    expect(isToolDefinition(add)).toBe(true);
    expect(isToolDefinition({ ...add })).toBe(false);
    expect(Object.isFrozen(add)).toBe(true);
    const response = await add.run(
      { a: 2, b: 3 },
      {
        signal: new AbortController().signal,
        callId: 'c1',
        toolName: 'add',
      },
    );
    expect(response).toMatchObject({ status: 'success', text: '5', data: 5 });
  });

  it.each([
    ['an empty name', ''],
    ['a space', 'read file'],
    ['a dot', 'fs.read'],
    ['65 characters', 'x'.repeat(65)],
    ['a non-string', 7],
  ])('rejects a name with %s', (_label, name) => {
    expect(() => defineTool({ ...add, name: name as string })).toThrow(
      /invalid tool name .*1 to 64 characters of a-z, A-Z, 0-9, _ and -/,
    );
  });

  it('accepts the longest and the oddest valid names', () => {
    expect(defineTool({ ...add, name: 'x'.repeat(64) }).name).toHaveLength(64);
    expect(defineTool({ ...add, name: 'A-b_9' }).name).toBe('A-b_9');
  });

  it.each([
    ['description', { description: '  ' }, /non-empty description/],
    ['input', { input: { type: 'object' } }, /needs a zod schema as input/],
    ['output', { output: 'string' }, /output must be a zod schema/],
    ['run', { run: 'go' }, /needs a run function/],
    [
      'timeoutMs',
      { timeoutMs: 0 },
      /timeoutMs must be a positive finite number/,
    ],
    ['timeoutMs', { timeoutMs: Number.POSITIVE_INFINITY }, /timeoutMs/],
    ['idempotent', { idempotent: 'yes' }, /idempotent must be a boolean/],
    [
      'a non-object input schema',
      { input: z.string() },
      /providers need an object input schema/,
    ],
    [
      'an unrepresentable schema',
      { input: z.object({ when: z.date() }) },
      /cannot be expressed as JSON Schema/,
    ],
  ])('rejects a bad %s with a clear error', (_field, patch, message) => {
    expect(() => defineTool({ ...add, ...(patch as object) })).toThrow(message);
  });
});

describe('provider specs', () => {
  it('gives the input side of the schema without the $schema key', () => {
    const schema = toolInputJsonSchema(add);
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        a: { type: 'number', description: 'first' },
        b: { type: 'number', default: 0 },
      },
      required: ['a'],
    });
    expect('$schema' in schema).toBe(false);
  });

  it('builds an OpenAI function spec and an Anthropic tool spec', () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
    expect(toOpenAITool(add)).toEqual({
      type: 'function',
      function: {
        name: 'add',
        description: 'Adds two numbers',
        parameters: toolInputJsonSchema(add),
      },
    });
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
    expect(toAnthropicTool(add)).toEqual({
      name: 'add',
      description: 'Adds two numbers',
      input_schema: toolInputJsonSchema(add),
    });
  });
});

describe('defineTool with zod 3', () => {
  it('names the found and the needed zod for a zod 3 input or output schema', async () => {
    const { z: z3 } = await import('zod3');
    const run = () => ToolResponse.success('ok');
    const input = z3.object({ a: z3.number() });
    expect(() =>
      defineTool({ name: 'old', description: 'd', input, run } as never),
    ).toThrow(
      /tool "old" needs a zod schema as input; found a zod 3 schema, but Candor needs zod \^4\.0\.17/,
    );
    expect(() =>
      defineTool({
        name: 'old',
        description: 'd',
        input: z.object({}),
        output: input,
        run,
      } as never),
    ).toThrow(/output must be a zod schema when given; found a zod 3 schema/);
  });

  it('keeps the plain message for a value that is no schema at all', () => {
    expect(() =>
      defineTool({
        name: 'none',
        description: 'd',
        input: { a: 1 },
        run: () => ToolResponse.success('ok'),
      } as never),
    ).toThrow(/tool "none" needs a zod schema as input$/);
  });
});
