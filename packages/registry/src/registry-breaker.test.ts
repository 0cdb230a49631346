import { ToolError } from '@candor/errors';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from './tool-registry.ts';

const breaker = { minimumCalls: 2, failureRatePct: 50, resetTimeoutMs: 1000 };

function failing(
  name: string,
  run = vi.fn((): ToolResponse =>
    ToolResponse.error('API_ERROR', 'upstream 502'),
  ),
) {
  return {
    run,
    tool: defineTool({
      name,
      description: 'Fails',
      input: z.object({ n: z.number().optional() }),
      run,
    }),
  };
}

describe('4. breaker stage', () => {
  let registry: ToolRegistry;
  beforeEach(() => {
    vi.useFakeTimers();
    registry = new ToolRegistry({ breaker });
  });
  afterEach(() => {
    registry.shutdown();
    vi.useRealTimers();
  });

  it('fast-fails with CIRCUIT_OPEN without running the tool, then recovers', async () => {
    const { run, tool } = failing('flaky');
    registry.register(tool);
    await registry.call('flaky', {});
    await registry.call('flaky', {});
    expect(run).toHaveBeenCalledTimes(2);
    const ends: string[] = [];
    registry.on('tool:end', (event) =>
      ends.push(`${event.stage}:${event.code ?? event.outcome}`),
    );
    const rejected = await registry.call('flaky', {});
    expect(run).toHaveBeenCalledTimes(2);
    expect(rejected.status === 'error' && rejected.errorInfo.code).toBe(
      'CIRCUIT_OPEN',
    );
    expect(rejected.status === 'error' && rejected.errorInfo.retryAfterMs).toBe(
      1000,
    );
    expect(ends).toEqual(['breaker:CIRCUIT_OPEN']);
    expect(registry.health()).toEqual([
      expect.objectContaining({ name: 'flaky', state: 'open' }),
    ]);
    expect(registry.specs({ hideOpenCircuits: true })).toEqual([]);
    expect(registry.specs()).toHaveLength(1);

    run.mockImplementation(() => ToolResponse.success('back'));
    await vi.advanceTimersByTimeAsync(1000);
    const trial = await registry.call('flaky', {});
    expect(trial.text).toBe('back');
    expect(registry.health()[0]?.state).toBe('closed');
  });

  it('hides an open tool from the cached specs and shows the very same spec again once it recovers', async () => {
    const { run, tool } = failing('flaky');
    registry.register(tool);
    registry.register(
      defineTool({
        name: 'steady',
        description: 'Works',
        input: z.object({}),
        run: () => ToolResponse.success('ok'),
      }),
    );
    const [flaky, steady] = registry.specs();
    await registry.call('flaky', {});
    await registry.call('flaky', {});
    expect(registry.specs({ hideOpenCircuits: true })).toEqual([steady]);
    expect(registry.specs({ hideOpenCircuits: true })[0]).toBe(steady);
    expect(registry.specs()).toEqual([flaky, steady]);
    run.mockImplementation(() => ToolResponse.success('back'));
    await vi.advanceTimersByTimeAsync(1000);
    await registry.call('flaky', {});
    const shown = registry.specs({ hideOpenCircuits: true });
    expect(shown).toHaveLength(2);
    expect(shown[0]).toBe(flaky);
    expect(shown[1]).toBe(steady);
  });

  it('counts health() windows through the shared bucket rotations', async () => {
    const counting = new ToolRegistry({
      breaker: { minimumCalls: 100, windowMs: 6_000, buckets: 6 },
    });
    try {
      counting.register(
        defineTool({
          name: 'steady',
          description: 'Works',
          input: z.object({}),
          run: () => ToolResponse.success('ok'),
        }),
      );
      for (let i = 0; i < 3; i++) await counting.call('steady', {});
      await vi.advanceTimersByTimeAsync(1_000);
      await counting.call('steady', {});
      expect(counting.health()[0]?.window).toMatchObject({
        calls: 4,
        successes: 4,
      });
      // The first three leave the window six rotations after they were counted.
      await vi.advanceTimersByTimeAsync(5_000);
      expect(counting.health()[0]?.window).toMatchObject({
        calls: 1,
        successes: 1,
      });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(counting.health()[0]?.window.calls).toBe(0);
    } finally {
      counting.shutdown();
    }
  });

  it('never lets argument failures or denials reach the breaker', async () => {
    const { run, tool } = failing('guarded');
    const denying = new ToolRegistry({
      breaker,
      approve: ({ params }) => (params as { n?: number }).n !== 7,
    });
    denying.register(tool);
    for (let index = 0; index < 10; index++) {
      await denying.call('guarded', { n: 'not a number' });
      await denying.call('guarded', '{bad json');
      await denying.call('guarded', { n: 7 });
    }
    expect(run).not.toHaveBeenCalled();
    expect(denying.health()).toEqual([]);
    denying.shutdown();
  });

  it('does not count NOT_FOUND or cancellations, and counts thrown failures', async () => {
    const notFound = defineTool({
      name: 'lookup',
      description: 'Finds nothing',
      input: z.object({}),
      run: () => {
        throw new ToolError({ code: 'NOT_FOUND', message: 'no such record' });
      },
    });
    registry.register(notFound);
    for (let index = 0; index < 5; index++) await registry.call('lookup', {});
    expect(registry.health()[0]).toMatchObject({
      state: 'closed',
      window: { failures: 0, successes: 5 },
    });

    registry.register(
      defineTool({
        name: 'slow',
        description: 'Hangs',
        input: z.object({}),
        run: () => new Promise<ToolResponse>(() => undefined),
      }),
    );
    const controller = new AbortController();
    const cancelled = registry.call('slow', {}, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(0);
    controller.abort();
    expect((await cancelled).status === 'error').toBe(true);
    expect(
      registry.health().find((snapshot) => snapshot.name === 'slow')?.window
        .failures,
    ).toBe(0);
  });

  it('keeps breakers independent per tool and can be disabled per tool', async () => {
    const a = failing('a_tool');
    const b = failing('b_tool');
    registry.register(a.tool);
    registry.register(b.tool, { breaker: false });
    for (let index = 0; index < 4; index++) {
      await registry.call('a_tool', {});
      await registry.call('b_tool', {});
    }
    expect(a.run).toHaveBeenCalledTimes(2);
    expect(b.run).toHaveBeenCalledTimes(4);
    expect(registry.health().map((snapshot) => snapshot.name)).toEqual([
      'a_tool',
    ]);
  });
});

describe('concurrency', () => {
  it('settles 1,000 parallel calls to good and failing tools with exact breaker counts', async () => {
    const registry = new ToolRegistry({ breaker: { minimumCalls: 10_000 } });
    let goodRuns = 0;
    let badRuns = 0;
    registry.register(
      defineTool({
        name: 'good',
        description: 'Works',
        input: z.object({ i: z.number() }),
        run: async ({ i }) => {
          goodRuns += 1;
          await Promise.resolve();
          return ToolResponse.success(String(i));
        },
      }),
    );
    registry.register(
      defineTool({
        name: 'bad',
        description: 'Fails',
        input: z.object({ i: z.number() }),
        run: async ({ i }) => {
          badRuns += 1;
          await Promise.resolve();
          throw new Error(`failure ${i}`);
        },
      }),
    );
    const calls = Array.from({ length: 1000 }, (_, i) =>
      registry.call(i % 3 === 0 ? 'bad' : 'good', { i }),
    );
    const responses = await Promise.all(calls);
    expect(responses).toHaveLength(1000);
    expect(
      responses.filter((response) => response.status === 'success'),
    ).toHaveLength(666);
    expect(
      responses.filter((response) => response.status === 'error'),
    ).toHaveLength(334);
    expect(goodRuns).toBe(666);
    expect(badRuns).toBe(334);
    const health = Object.fromEntries(
      registry.health().map((snapshot) => [snapshot.name, snapshot.window]),
    );
    expect(health['good']).toMatchObject({
      calls: 666,
      successes: 666,
      failures: 0,
    });
    expect(health['bad']).toMatchObject({
      calls: 334,
      successes: 0,
      failures: 334,
    });
    registry.shutdown();
  });
});

describe('shutdown', () => {
  it('answers later calls with an error response, never a rejection', async () => {
    const registry = new ToolRegistry();
    registry.register(failing('x').tool);
    await registry.call('x', {});
    registry.shutdown();
    const response = await registry.call('x', {});
    expect(response.status === 'error' && response.text).toBe(
      'The tool registry has been shut down.',
    );
  });
});

describe('one owner of the run', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('the call’s timeoutMs wins over the tool’s, with or without a breaker', async () => {
    for (const breakerOption of [{}, false] as const) {
      const registry = new ToolRegistry({ breaker: breakerOption });
      registry.register(
        defineTool({
          name: 'slow',
          description: 'Answers after 1.5 s',
          input: z.object({}),
          timeoutMs: 100,
          run: () =>
            new Promise<ToolResponse>((resolve) => {
              setTimeout(() => {
                resolve(ToolResponse.success('done'));
              }, 1_500);
            }),
        }),
      );
      const pending = registry.call('slow', {}, { timeoutMs: 5_000 });
      await vi.advanceTimersByTimeAsync(1_500);
      const response = await pending;
      expect(response.status).toBe('success');
      expect(registry.health().every((s) => s.window.failures === 0)).toBe(
        true,
      );
      registry.shutdown();
    }
  });

  it('a deadline TIMEOUT is counted once, as a timeout, in the breaker’s window', async () => {
    const registry = new ToolRegistry({ breaker: { minimumCalls: 5 } });
    registry.register(
      defineTool({
        name: 'hang',
        description: 'Never answers',
        input: z.object({}),
        timeoutMs: 100,
        run: () => new Promise<ToolResponse>(() => undefined),
      }),
    );
    const pending = registry.call('hang', {});
    await vi.advanceTimersByTimeAsync(100);
    const response = await pending;
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'TIMEOUT',
    );
    expect(registry.health()[0]?.window).toMatchObject({
      calls: 1,
      failures: 1,
      timeouts: 1,
    });
    registry.shutdown();
  });
});
