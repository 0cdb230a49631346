import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { echo, setup } from './__fixtures__/echo-registry.ts';

describe('progress', () => {
  const steps = defineTool({
    name: 'steps',
    description: 'Reports progress, some of it malformed',
    input: z.object({}),
    run: (_input, { reportProgress }) => {
      reportProgress?.({ progress: 1, total: 3, message: 'first' });
      reportProgress?.({ progress: Number.NaN });
      reportProgress?.(null as never);
      reportProgress?.({
        progress: 2,
        total: 'many' as never,
        message: 7 as never,
      });
      return ToolResponse.success('done');
    },
  });

  it("passes the tool's well-formed reports to onProgress and drops the rest", async () => {
    const { registry } = setup();
    registry.register(steps);
    const reports: unknown[] = [];
    const response = await registry.call(
      'steps',
      {},
      { onProgress: (report) => reports.push(report) },
    );
    expect(response.status).toBe('success');
    expect(reports).toEqual([
      { progress: 1, total: 3, message: 'first' },
      { progress: 2 },
    ]);
  });

  it('is a no-op without onProgress, and a throwing listener cannot fail the call', async () => {
    const { registry } = setup();
    registry.register(steps);
    expect((await registry.call('steps', {})).status).toBe('success');
    const response = await registry.call(
      'steps',
      {},
      {
        onProgress: () => {
          throw new Error('listener bug');
        },
      },
    );
    expect(response.status).toBe('success');
  });
});

describe('signals are made only when a tool reads one', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands a tool that reads its signal late an already aborted one', async () => {
    vi.useFakeTimers();
    let context: { readonly signal: AbortSignal } | undefined;
    const { registry } = setup({ timeoutMs: 100 });
    registry.register(
      defineTool({
        ...echo,
        name: 'late_reader',
        run: (_input, runContext) => {
          context = runContext;
          return new Promise<ToolResponse>(() => undefined);
        },
      }),
    );
    const pending = registry.call('late_reader', { message: 'x' });
    await vi.advanceTimersByTimeAsync(100);
    expect((await pending).status === 'error').toBe(true);
    expect(context?.signal.aborted).toBe(true);
    expect((context?.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('gives a tool the caller’s reason when the caller aborts', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { registry } = setup();
    registry.register(
      defineTool({
        ...echo,
        name: 'reader',
        run: (_input, { signal }) => {
          seen = signal;
          started();
          return new Promise<ToolResponse>(() => undefined);
        },
      }),
    );
    const pending = registry.call(
      'reader',
      { message: 'x' },
      { signal: controller.signal },
    );
    await running;
    controller.abort('user pressed stop');
    await pending;
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe('user pressed stop');
  });
});
