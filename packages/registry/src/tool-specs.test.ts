import { defineTool, ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { echo, setup } from './__fixtures__/echo-registry.ts';

describe('specs', () => {
  it('gives json-schema specs the output schema of tools that declare one, and only those', () => {
    const { registry } = setup();
    registry.register(echo);
    registry.register(
      defineTool({
        name: 'sized',
        description: 'Has an output schema',
        input: z.object({}),
        output: z.object({ size: z.number() }),
        run: () => ToolResponse.success('1', { data: { size: 1 } }),
      }),
    );
    const [plain, sized] = registry.specs({ format: 'json-schema' });
    expect(plain).not.toHaveProperty('outputSchema');
    expect(sized?.outputSchema).toEqual({
      type: 'object',
      properties: { size: { type: 'number' } },
      required: ['size'],
      additionalProperties: false,
    });
  });
});

describe('specs: one frozen spec per tool', () => {
  it('hands out the same frozen spec until the tool is replaced', () => {
    const { registry } = setup();
    registry.register(echo);
    const [first] = registry.specs();
    const [again] = registry.specs();
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(registry.specs()).not.toBe(registry.specs());
    registry.register(defineTool({ ...echo, description: 'A new echo' }), {
      replace: true,
    });
    const [replaced] = registry.specs();
    expect(replaced).not.toBe(first);
    expect(replaced?.description).toBe('A new echo');
  });
});
