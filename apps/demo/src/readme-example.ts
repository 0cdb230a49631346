import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';

const divide = defineTool({
  name: 'divide',
  description: 'Divides a by b',
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) =>
    b === 0
      ? ToolResponse.error('INVALID_PARAM', 'b must not be zero')
      : ToolResponse.success(String(a / b), { data: a / b }),
});

export const registry = new ToolRegistry().register(divide);
