// @candor/tools as a TypeScript user writes against it. Each @ts-expect-error proves the
// published types are real: were they missing or `any`, the expected error would not occur and
// tsc would fail on the unused directive.
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';

function takesString(text: string): string {
  return text;
}

export const divide = defineTool({
  name: 'divide',
  description: 'Divides a by b',
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => {
    // @ts-expect-error -- `a` is inferred from the zod schema as a number.
    takesString(a);
    return b === 0
      ? ToolResponse.error('INVALID_PARAM', 'b must not be zero')
      : ToolResponse.success(String(a / b), { data: a / b });
  },
});

// @ts-expect-error -- not one of the 15 error codes.
ToolResponse.error('NOT_A_CODE', 'no such code');

export function describeResponse(response: ToolResponse): string {
  switch (response.status) {
    case 'success':
      return response.text;
    case 'partial':
      return response.reason;
    case 'error':
      return response.errorInfo.code;
  }
}
