import { defineTool, ToolResponse } from '@candor/tools';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { echo, setup } from './__fixtures__/echo-registry.ts';

describe('3. approval gate', () => {
  it('returns a denial, does not run the tool, and shows censored params to the gate', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const approve = vi.fn(() => ({
      approved: false,
      reason: 'deploys need a human',
    }));
    const { registry, ends } = setup({ approve });
    registry.register(
      defineTool({
        ...echo,
        name: 'deploy',
        input: z.object({ apiKey: z.string() }),
        run,
      }),
    );
    const response = await registry.call(
      'deploy',
      { apiKey: 'sk-live-123' },
      { callId: 'c9' },
    );
    expect(response.status === 'error' && response.errorInfo).toEqual({
      code: 'ACCESS_DENIED',
      message:
        'The approval gate refused the call to "deploy" (reason: deploys need a human).',
      retryable: false,
      denied: true,
    });
    expect(run).not.toHaveBeenCalled();
    expect(approve).toHaveBeenCalledWith({
      toolName: 'deploy',
      callId: 'c9',
      params: { apiKey: '[REDACTED]' },
    });
    expect(ends[0]).toMatchObject({
      stage: 'approval',
      outcome: 'denied',
      code: 'ACCESS_DENIED',
    });
  });

  it('runs the tool when approved, sync or async', async () => {
    const { registry } = setup({ approve: async () => true });
    registry.register(echo);
    expect((await registry.call('echo', { message: 'ok' })).status).toBe(
      'success',
    );
  });

  it('reports a failing gate as INTERNAL_ERROR and does not run the tool', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const { registry } = setup({
      approve: () => {
        throw new Error('policy service down');
      },
    });
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const response = await registry.call('spy', { message: 'x' });
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'INTERNAL_ERROR',
    );
    expect(response.text).toBe(
      'The approval gate failed, so "spy" was not run: policy service down',
    );
    expect(run).not.toHaveBeenCalled();
  });

  it('refuses on any answer but true or { approved: true }, a throwing getter included', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const answers: unknown[] = [
      undefined,
      'yes',
      1,
      { approved: 'true' },
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('hostile getter');
          },
        },
      ),
    ];
    const { registry } = setup({
      approve: () => answers.shift() as boolean,
    });
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const codes: unknown[] = [];
    for (let i = 0; i < 5; i += 1) {
      const response = await registry.call('spy', { message: 'x' });
      codes.push(response.status === 'error' && response.errorInfo.code);
    }
    expect(codes).toEqual([
      'ACCESS_DENIED',
      'ACCESS_DENIED',
      'ACCESS_DENIED',
      'ACCESS_DENIED',
      'INTERNAL_ERROR',
    ]);
    expect(run).not.toHaveBeenCalled();
  });
});

describe('3b. per-call approval (CallOptions.approve)', () => {
  it('decides instead of the registry gate, which it receives to defer to', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const gate = vi.fn(() => false);
    const { registry, ends } = setup({ approve: gate });
    registry.register(defineTool({ ...echo, name: 'spy', run }));

    const approved = await registry.call(
      'spy',
      { message: 'x' },
      { approve: () => true },
    );
    expect(approved.status).toBe('success');
    expect(gate).not.toHaveBeenCalled();

    const deferred = await registry.call(
      'spy',
      { message: 'y' },
      {
        callId: 'c2',
        approve: (request, registryGate) => registryGate(request),
      },
    );
    expect(deferred.status === 'error' && deferred.errorInfo.denied).toBe(true);
    expect(gate).toHaveBeenCalledWith({
      toolName: 'spy',
      callId: 'c2',
      params: { message: 'y' },
    });

    const refused = await registry.call(
      'spy',
      { message: 'z' },
      { approve: () => ({ approved: false, reason: 'the user said no' }) },
    );
    expect(refused.text).toBe(
      'The approval gate refused the call to "spy" (reason: the user said no).',
    );
    expect(run).toHaveBeenCalledTimes(1);
    expect(ends.map((end) => end.stage)).toEqual([
      'run',
      'approval',
      'approval',
    ]);
  });

  it('runs on a registry without a gate, whose stand-in gate approves', async () => {
    const { registry } = setup();
    registry.register(echo);
    const seen: unknown[] = [];
    const response = await registry.call(
      'echo',
      { message: 'ok' },
      {
        approve: async (request, gate) => {
          seen.push(await gate(request));
          return { approved: false };
        },
      },
    );
    expect(seen).toEqual([true]);
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'ACCESS_DENIED',
    );
  });

  it('maps a throwing per-call hook to INTERNAL_ERROR without running the tool', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const { registry } = setup();
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const response = await registry.call(
      'spy',
      { message: 'x' },
      {
        approve: () => Promise.reject(new Error('client gone')),
      },
    );
    expect(response.text).toBe(
      'The approval gate failed, so "spy" was not run: client gone',
    );
    expect(run).not.toHaveBeenCalled();
  });
});
