// A first tool in a registry: every call ends in a ToolResponse, and a failure never looks like
// success. Offline by nature: no model is involved.
import { ToolRegistry } from '@candor/registry';
import { defineTool, isOutcome, outcomeOf, ToolResponse } from '@candor/tools';
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

const registry = new ToolRegistry().register(divide);

for (const args of [
  { a: 1, b: 4 },
  { a: 1, b: 0 },
  { a: 'one', b: 2 },
]) {
  const response = await registry.call('divide', args);
  const detail = isOutcome(response, 'error')
    ? response.errorInfo.code
    : response.text;
  console.log(
    `divide ${JSON.stringify(args)} → ${outcomeOf(response)} ${detail}`,
  );
}
registry.shutdown();
