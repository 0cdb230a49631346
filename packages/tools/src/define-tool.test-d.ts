import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type ToolRunContext } from './define-tool.ts';
import { ToolResponse } from './tool-response.ts';

describe('defineTool types', () => {
  it('infers run’s input from the zod schema, after defaults', () => {
    defineTool({
      name: 'search',
      description: 'Searches',
      input: z.object({
        query: z.string(),
        limit: z.number().default(10),
        tags: z.array(z.string()).optional(),
      }),
      run: (input, context) => {
        expectTypeOf(input).toEqualTypeOf<{
          query: string;
          limit: number;
          tags?: string[] | undefined;
        }>();
        expectTypeOf(context).toEqualTypeOf<ToolRunContext>();
        return ToolResponse.success(input.query);
      },
    });
  });

  it('rejects a run that does not return a ToolResponse', () => {
    defineTool({
      name: 'bad',
      description: 'Returns a string',
      input: z.object({}),
      // @ts-expect-error run must return a ToolResponse, not a string
      run: () => 'done',
    });
  });

  it('rejects reading a field the schema does not have', () => {
    defineTool({
      name: 'typo',
      description: 'Reads a missing field',
      input: z.object({ path: z.string() }),
      run: (input) => {
        // @ts-expect-error `file` is not in the schema
        return ToolResponse.success(input.file); // eslint-disable-line @typescript-eslint/no-unsafe-argument
      },
    });
  });
});
