import { describe, expect, it } from 'vitest';
import { echo, setup } from './__fixtures__/echo-registry.ts';

describe('1. lookup', () => {
  it('answers an unknown tool with NOT_FOUND listing the available names', async () => {
    const { registry, ends } = setup();
    registry.register(echo).register(function ping() {
      return 'pong';
    });
    const response = await registry.call('nope', {});
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'NOT_FOUND',
    );
    expect(response.text).toBe(
      'Unknown tool "nope". Available tools: echo, ping.',
    );
    expect(ends[0]).toMatchObject({
      stage: 'lookup',
      outcome: 'error',
      code: 'NOT_FOUND',
    });
  });
});
