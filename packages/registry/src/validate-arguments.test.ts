import { defineTool, ToolResponse } from '@candor/tools';
import { describe, expect, it, vi } from 'vitest';
import { echo, setup } from './__fixtures__/echo-registry.ts';

describe('2. arguments', () => {
  it('accepts a JSON string or an object', async () => {
    const { registry } = setup();
    registry.register(echo);
    expect(
      (await registry.call('echo', '{"message":"hi","times":2}')).text,
    ).toBe('hihi');
    expect((await registry.call('echo', { message: 'yo' })).text).toBe('yo');
  });

  it('answers invalid JSON with INVALID_FORMAT without running the tool', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const { registry, ends } = setup();
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const response = await registry.call('spy', '{"message": "hi"');
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'INVALID_FORMAT',
    );
    expect(response.text).toMatch(
      /^The arguments are not valid JSON \(.+\)\. Send a JSON object/,
    );
    expect(run).not.toHaveBeenCalled();
    expect(ends[0]?.stage).toBe('arguments');
  });

  it('answers a schema failure with INVALID_PARAM naming each path, without values or stacks', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const { registry } = setup();
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const response = await registry.call('spy', {
      message: 42,
      times: 0,
      password: 'hunter22',
    });
    expect(response.status).toBe('error');
    if (response.status !== 'error') return;
    expect(response.errorInfo.code).toBe('INVALID_PARAM');
    expect(response.text).toBe(
      'Invalid arguments: message: Invalid input: expected string, received number; times: Too small: expected number to be >=1. Fix them and call again.',
    );
    expect(response.errorInfo.details).toEqual({
      issues: [
        {
          path: 'message',
          message: 'Invalid input: expected string, received number',
        },
        { path: 'times', message: 'Too small: expected number to be >=1' },
      ],
    });
    expect(response.text).not.toContain('hunter22');
    expect(response.text).not.toMatch(/\n\s+at /);
    expect(run).not.toHaveBeenCalled();
  });

  it('treats missing or empty arguments as an empty object', async () => {
    const { registry } = setup();
    registry.register(function noArgs() {
      return 'fine';
    });
    expect((await registry.call('noArgs')).status).toBe('success');
    expect((await registry.call('noArgs', '')).status).toBe('success');
  });
});
