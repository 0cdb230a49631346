import { defineTool, outcomeOf, ToolResponse } from '@candor/tools';
import { z } from 'zod';

export const divide = defineTool({
  name: 'divide',
  description: 'Divides a by b',
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) =>
    b === 0
      ? ToolResponse.error('INVALID_PARAM', 'b must not be zero')
      : ToolResponse.success(String(a / b), { data: a / b }),
});

export { outcomeOf };
