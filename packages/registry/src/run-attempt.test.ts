import { getEventListeners } from 'node:events';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { echo, setup } from './__fixtures__/echo-registry.ts';

describe('5. run: timeout and cancellation', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives TIMEOUT when the tool hangs past its limit, and aborts the tool’s signal', async () => {
    let seen: AbortSignal | undefined;
    const { registry, ends } = setup({ timeoutMs: 1000 });
    registry.register(
      defineTool({
        ...echo,
        name: 'hang',
        run: (_input, { signal }) => {
          seen = signal;
          return new Promise<ToolResponse>(() => undefined);
        },
      }),
    );
    const pending = registry.call('hang', { message: 'x' });
    await vi.advanceTimersByTimeAsync(999);
    expect(seen?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const response = await pending;
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'TIMEOUT',
      retryable: true,
    });
    expect(response.text).toBe('Tool "hang" did not finish within 1000 ms.');
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as DOMException).name).toBe('TimeoutError');
    expect(ends).toHaveLength(1);
  });

  it('uses the tool’s own timeoutMs and a per-call override', async () => {
    const { registry } = setup({ timeoutMs: 10_000 });
    registry.register(
      defineTool({
        ...echo,
        name: 'slow',
        timeoutMs: 50,
        run: () => new Promise<ToolResponse>(() => undefined),
      }),
    );
    const byTool = registry.call('slow', { message: 'x' });
    await vi.advanceTimersByTimeAsync(50);
    expect((await byTool).text).toBe(
      'Tool "slow" did not finish within 50 ms.',
    );
    const byCall = registry.call('slow', { message: 'x' }, { timeoutMs: 20 });
    await vi.advanceTimersByTimeAsync(20);
    expect((await byCall).text).toBe(
      'Tool "slow" did not finish within 20 ms.',
    );
  });

  it('reports a caller abort as cancelled, at once, and ignores the late answer', async () => {
    let finishLate: (response: ToolResponse) => void = () => undefined;
    const { registry } = setup();
    registry.register(
      defineTool({
        ...echo,
        name: 'late',
        run: () =>
          new Promise<ToolResponse>((resolve) => {
            finishLate = resolve;
          }),
      }),
    );
    const controller = new AbortController();
    const pending = registry.call(
      'late',
      { message: 'x' },
      { signal: controller.signal },
    );
    await vi.advanceTimersByTimeAsync(0);
    controller.abort();
    const response = await pending;
    finishLate(ToolResponse.success('too late'));
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
      retryable: false,
    });
    expect(response.text).toBe(
      'The call to "late" was cancelled by the caller.',
    );
  });

  it("follows the caller's signal only while an asynchronous tool runs", async () => {
    const { registry } = setup();
    const controller = new AbortController();
    const listeners = (): number =>
      getEventListeners(controller.signal, 'abort').length;
    const seen: number[] = [];
    registry.register(
      defineTool({
        ...echo,
        name: 'now',
        run: () => {
          seen.push(listeners());
          return ToolResponse.success('done');
        },
      }),
    );
    let finish: (response: ToolResponse) => void = () => undefined;
    registry.register(
      defineTool({
        ...echo,
        name: 'later',
        run: () =>
          new Promise<ToolResponse>((resolve) => {
            finish = resolve;
          }),
      }),
    );
    const options = { signal: controller.signal };
    expect((await registry.call('now', { message: 'x' }, options)).status).toBe(
      'success',
    );
    // A synchronous tool is over before anyone could cancel it: no listener, ever.
    expect(seen).toEqual([0]);
    const pending = registry.call('later', { message: 'x' }, options);
    await vi.advanceTimersByTimeAsync(0);
    expect(listeners()).toBe(1);
    finish(ToolResponse.success('done'));
    expect((await pending).status).toBe('success');
    expect(listeners()).toBe(0);
  });

  it('cancels an asynchronous tool whose start aborted the caller', async () => {
    const { registry } = setup();
    const controller = new AbortController();
    registry.register(
      defineTool({
        ...echo,
        name: 'self',
        run: () => {
          // The caller's signal aborts before the tool's promise is handed back.
          controller.abort();
          return new Promise<ToolResponse>(() => undefined);
        },
      }),
    );
    const response = await registry.call(
      'self',
      { message: 'x' },
      { signal: controller.signal },
    );
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
    });
  });

  it("aborts the tool's signal when the caller cancels during the tool's synchronous start", async () => {
    // The caller cancels from its progress listener, which runs inside the tool's first
    // synchronous stretch; the signal the tool reads right after must already say so, or the
    // tool starts work the caller no longer wants.
    const { registry } = setup();
    const controller = new AbortController();
    const seen: boolean[] = [];
    const started: string[] = [];
    registry.register(
      defineTool({
        ...echo,
        name: 'steps',
        run: async (_input, { signal, reportProgress }) => {
          for (const step of ['first', 'second']) {
            reportProgress?.({ progress: 1 });
            seen.push(signal.aborted);
            if (signal.aborted) break;
            started.push(step);
            await Promise.resolve();
          }
          return ToolResponse.success('done');
        },
      }),
    );
    const response = await registry.call(
      'steps',
      { message: 'x' },
      {
        signal: controller.signal,
        onProgress: () => {
          controller.abort();
        },
      },
    );
    expect(seen).toEqual([true]);
    expect(started).toEqual([]);
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
    });
  });

  it('aborts the signal a synchronous tool read when its caller cancels while it runs', async () => {
    const { registry } = setup();
    const controller = new AbortController();
    let seen: boolean | undefined;
    registry.register(
      defineTool({
        ...echo,
        name: 'now',
        run: (_input, { signal }) => {
          controller.abort();
          seen = signal.aborted;
          return ToolResponse.success('done');
        },
      }),
    );
    const options = { signal: controller.signal };
    const response = await registry.call('now', { message: 'x' }, options);
    expect(seen).toBe(true);
    // A synchronous tool's answer stands: it was over before anyone could act on the abort.
    expect(response.status).toBe('success');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("runs a tool that reads its signal when the caller's signal cannot be followed", async () => {
    const { registry } = setup();
    const real = new AbortController().signal;
    // An AbortSignal by `instanceof` whose addEventListener throws.
    const hostile = new Proxy(real, {
      get(target, key) {
        if (key === 'addEventListener') throw new Error('no listeners here');
        return Reflect.get(target, key) as unknown;
      },
    });
    let seen: boolean | undefined;
    registry.register(
      defineTool({
        ...echo,
        name: 'reads',
        run: async (_input, { signal }) => {
          seen = signal.aborted;
          await Promise.resolve();
          return ToolResponse.success('done');
        },
      }),
    );
    const response = await registry.call(
      'reads',
      { message: 'x' },
      { signal: hostile },
    );
    expect(seen).toBe(false);
    expect(response.status).toBe('success');
  });

  it.each([
    [
      'a bare AbortSignal prototype',
      () => Object.create(AbortSignal.prototype) as AbortSignal,
    ],
    [
      'a Proxy whose every read throws',
      () =>
        new Proxy(new AbortController().signal, {
          get() {
            throw new Error('hostile');
          },
        }),
    ],
  ])(
    'answers, never rejects, when the caller passes %s as its signal',
    async (_label, make) => {
      const { registry } = setup();
      const answer = ToolResponse.success('done');
      registry.register(
        defineTool({ ...echo, name: 'sync', run: () => answer }),
      );
      registry.register(
        defineTool({
          ...echo,
          name: 'async',
          run: () => Promise.resolve(answer),
        }),
      );
      registry.register(
        defineTool({
          ...echo,
          name: 'retried',
          idempotent: true,
          retry: {},
          run: () => answer,
        }),
      );
      // A signal whose reads throw cannot be asked whether it aborted: the call is refused as
      // the registry's own failure, as a response.
      for (const name of ['sync', 'async', 'retried']) {
        const response = await registry.call(
          name,
          { message: 'x' },
          { signal: make() },
        );
        expect([
          name,
          response.status === 'error'
            ? response.errorInfo.code
            : response.status,
        ]).toEqual([name, 'INTERNAL_ERROR']);
      }
    },
  );

  it("adds no listener to the caller's signal when a tool reads its signal after its call ended", async () => {
    const { registry } = setup();
    const controller = new AbortController();
    const kept: { signal: AbortSignal }[] = [];
    registry.register(
      defineTool({
        ...echo,
        name: 'keeps',
        run: async (_input, context) => {
          kept.push(context);
          await Promise.resolve();
          return ToolResponse.success('done');
        },
      }),
    );
    registry.register(
      defineTool({
        ...echo,
        name: 'keeps_sync',
        run: (_input, context) => {
          kept.push(context);
          return ToolResponse.success('done');
        },
      }),
    );
    const options = { signal: controller.signal };
    expect(
      (await registry.call('keeps', { message: 'x' }, options)).status,
    ).toBe('success');
    expect(
      (await registry.call('keeps_sync', { message: 'x' }, options)).status,
    ).toBe('success');
    // Read late (a callback the tool left behind): the calls are over, nothing may follow.
    expect(kept.map(({ signal }) => signal.aborted)).toEqual([false, false]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('does not run a tool whose caller already aborted', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const { registry } = setup();
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const response = await registry.call(
      'spy',
      { message: 'x' },
      { signal: AbortSignal.abort() },
    );
    expect(response.status === 'error' && response.errorInfo.cancelled).toBe(
      true,
    );
    expect(run).not.toHaveBeenCalled();
  });
});
