import { defineTool, ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { echo, setup } from './__fixtures__/echo-registry.ts';

describe('6. normalisation', () => {
  it.each([
    [
      'a string from a defineTool tool',
      'plain text',
      'expected a ToolResponse, got a string',
    ],
    ['undefined', undefined, 'expected a ToolResponse, got a undefined'],
    ['null', null, 'expected a ToolResponse, got null'],
    [
      'a response without stats',
      { status: 'success', text: 'x' },
      'Invalid ToolResponse: stats:',
    ],
    [
      'an error without errorInfo',
      { status: 'error', text: 'x', stats: { timeMs: 0 } },
      'Invalid ToolResponse: errorInfo:',
    ],
  ])(
    'turns %s into INTERNAL_ERROR naming what was wrong',
    async (_label, value, problem) => {
      const { registry } = setup();
      registry.register(
        defineTool({ ...echo, name: 'junk', run: () => value as ToolResponse }),
      );
      const response = await registry.call('junk', { message: 'x' });
      expect(response.status === 'error' && response.errorInfo.code).toBe(
        'INTERNAL_ERROR',
      );
      expect(response.text).toContain(
        `Tool "junk" returned an invalid result: ${problem}`,
      );
    },
  );

  const withOutput = {
    ...echo,
    name: 'counted',
    output: z.object({ count: z.number() }),
    run: () => ToolResponse.success('done', { data: { count: 'three' } }),
  };

  it('makes an output-schema mismatch an ERROR for an idempotent tool', async () => {
    const { registry } = setup();
    registry.register(defineTool({ ...withOutput, idempotent: true }));
    const response = await registry.call('counted', { message: 'x' });
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'INTERNAL_ERROR',
    );
    expect(response.text).toMatch(
      /does not match its output schema: count: Invalid input: expected number/,
    );
  });

  it('makes an output-schema mismatch a PARTIAL for a tool with side effects', async () => {
    const { registry } = setup();
    registry.register(defineTool(withOutput));
    const response = await registry.call('counted', { message: 'x' });
    expect(response.status === 'partial' && response.reason).toBe(
      'output_schema_mismatch',
    );
    expect(response.text).toMatch(
      /^done\n\n\[Note: the tool ran, but its result does not match/,
    );
    expect(response.data).toEqual({ count: 'three' });
  });

  it('accepts output that matches', async () => {
    const { registry } = setup();
    registry.register(
      defineTool({
        ...withOutput,
        run: () => ToolResponse.success('3', { data: { count: 3 } }),
      }),
    );
    expect((await registry.call('counted', { message: 'x' })).status).toBe(
      'success',
    );
  });
});
