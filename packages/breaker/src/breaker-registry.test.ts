import { EventEmitter } from 'node:events';
import { ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BreakerRegistry } from './breaker-registry.ts';
import { bucketTicker } from './bucket-ticker.ts';
import { type ToolBreaker } from './tool-breaker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

const registries: BreakerRegistry[] = [];

function registry(
  ...args: ConstructorParameters<typeof BreakerRegistry>
): BreakerRegistry {
  const made = new BreakerRegistry(...args);
  registries.push(made);
  return made;
}

async function failTimes(breaker: ToolBreaker, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await breaker.execute(async () =>
      ToolResponse.error('NETWORK_ERROR', 'connection refused'),
    );
  }
}

/** Records every rotate controller the ticker hands out from now on (shared ones once). */
function captureControllers(): Set<EventEmitter> {
  const controllers = new Set<EventEmitter>();
  const original = bucketTicker.attach;
  vi.spyOn(bucketTicker, 'attach').mockImplementation((width) => {
    const controller = original(width);
    controllers.add(controller);
    return controller;
  });
  return controllers;
}

/** The rotate listeners on each captured controller. */
function rotateListeners(controllers: Set<EventEmitter>): number[] {
  return [...controllers].map((each) => each.listenerCount('rotate'));
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  for (const each of registries.splice(0)) each.shutdownAll();
  vi.restoreAllMocks();
  expect(bucketTicker.stats()).toEqual({ intervals: 0, breakers: 0 });
  vi.useRealTimers();
});

describe('BreakerRegistry', () => {
  it('creates one breaker per name, lazily, and ignores later overrides for that name', async () => {
    const breakers = registry({ minimumCalls: 5 });
    expect(breakers.has('search')).toBe(false);
    const first = breakers.get('search', { minimumCalls: 1 });
    expect(breakers.has('search')).toBe(true);
    expect(breakers.get('search', { minimumCalls: 50 })).toBe(first);
    await failTimes(first, 1);
    expect(first.state).toBe('open');
    const other = breakers.get('fetch');
    await failTimes(other, 4);
    expect(other.state).toBe('closed');
    expect(
      breakers.snapshots().map(({ name, state }) => [name, state]),
    ).toEqual([
      ['search', 'open'],
      ['fetch', 'closed'],
    ]);
  });

  it('validates defaults at construction and overrides at creation, registering nothing bad', () => {
    expect(() => new BreakerRegistry({ buckets: 7 })).toThrow(RangeError);
    const breakers = registry();
    expect(() => breakers.get('search', { minimumCalls: 0 })).toThrow(
      /"minimumCalls" must be an integer in \[1, /,
    );
    expect(breakers.has('search')).toBe(false);
    expect(() => breakers.get('')).toThrow(TypeError);
    expect(() =>
      breakers.get('search', null as unknown as Record<string, never>),
    ).toThrow(/overrides for "search" must be an object, got null/);
    const sevens = registry({ windowMs: 7_000, buckets: 7 });
    expect(sevens.get('fine', { buckets: 7 }).state).toBe('closed');
    expect(() => sevens.get('uneven', { buckets: 6 })).toThrow(
      /"buckets" \(6\) must divide "windowMs" \(7000\)/,
    );
  });

  it('21. shutdownAll() leaves no rotate listener and no timer, and later calls get a defined response', async () => {
    const controllers = captureControllers();
    const breakers = registry({ minimumCalls: 1, resetTimeoutMs: 30_000 });
    const open = breakers.get('open_tool');
    const halfOpen = breakers.get('half_open_tool', { resetTimeoutMs: 1_000 });
    const closed = breakers.get('closed_tool');
    await failTimes(open, 1);
    await failTimes(halfOpen, 1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect([open.state, halfOpen.state, closed.state]).toEqual([
      'open',
      'half_open',
      'closed',
    ]);
    // One shared controller for the one bucket width, one listener per breaker.
    expect(rotateListeners(controllers)).toEqual([3]);
    expect(vi.getTimerCount()).toBe(2);
    const changes: string[] = [];
    open.onStateChange(({ from, to }) => changes.push(`${from}→${to}`));

    breakers.shutdownAll();

    expect(rotateListeners(controllers)).toEqual([0]);
    expect(vi.getTimerCount()).toBe(0);
    expect(changes).toEqual(['open→shutdown']);
    const tool = vi.fn(async () => ToolResponse.success('ran'));
    for (const breaker of [open, halfOpen, closed, breakers.get('new_tool')]) {
      expect(breaker.state).toBe('shutdown');
      const response = await breaker.execute(tool);
      expect(response.status === 'error' && response.errorInfo).toMatchObject({
        code: 'CIRCUIT_OPEN',
        retryable: false,
      });
      expect(response.text).toContain('shut down');
    }
    expect(tool).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
    breakers.shutdownAll();
  });

  it('21. a call in flight at shutdown still ends with its own response', async () => {
    const breakers = registry();
    const breaker = breakers.get('slow_tool');
    let finish: (response: ToolResponse) => void = () => undefined;
    const pending = breaker.execute(
      () =>
        new Promise<ToolResponse>((resolve) => {
          finish = resolve;
        }),
    );
    breakers.shutdownAll();
    const done = ToolResponse.success('done');
    finish(done);
    expect(await pending).toBe(done);
    expect(breaker.state).toBe('shutdown');
  });

  it('22. breakers are independent, and shutting one down removes only its rotate listener', async () => {
    const controllers = captureControllers();
    const breakers = registry({ minimumCalls: 2, windowMs: 60_000 });
    const a = breakers.get('a');
    const b = breakers.get('b');
    await failTimes(a, 2);
    await failTimes(b, 1);
    expect(a.state).toBe('open');
    expect(b.state).toBe('closed');
    expect(b.snapshot().window).toMatchObject({ calls: 1, failures: 1 });
    expect(rotateListeners(controllers)).toEqual([2]);
    expect(bucketTicker.stats()).toEqual({ intervals: 1, breakers: 2 });

    a.shutdown();
    a.shutdown();

    expect(rotateListeners(controllers)).toEqual([1]);
    expect(bucketTicker.stats()).toEqual({ intervals: 1, breakers: 1 });
    // b's window still rotates on the shared ticker: its failure expires after windowMs.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(b.snapshot().window).toMatchObject({ calls: 0, failures: 0 });
    await failTimes(b, 1);
    expect(b.state).toBe('closed');
  });

  it('15. a recovering breaker resets only its own window, though its rotate controller is shared', async () => {
    const controllers = captureControllers();
    const breakers = registry({ minimumCalls: 2, resetTimeoutMs: 1_000 });
    const recovering = breakers.get('recovering');
    const bystander = breakers.get('bystander');
    await failTimes(recovering, 2);
    await failTimes(bystander, 1);
    expect(recovering.state).toBe('open');
    expect(controllers.size).toBe(1);

    await vi.advanceTimersByTimeAsync(1_000);
    await recovering.execute(async () => ToolResponse.success('back'));

    expect(recovering.state).toBe('closed');
    expect(recovering.snapshot().window).toMatchObject({
      calls: 0,
      failures: 0,
    });
    // The bystander's failure is still in its window: the reset rotated no one else's buckets.
    expect(bystander.snapshot().window).toMatchObject({
      calls: 1,
      failures: 1,
    });
    await failTimes(bystander, 1);
    expect(bystander.state).toBe('open');
  });

  it('23. a thousand tools share one interval and raise no MaxListenersExceededWarning', async () => {
    // Caught where Node raises a warning, before it is printed: the control below must not print
    // one into a clean run (this file's failOnProcessWarnings guard fails it if it does).
    const emitWarning = vi
      .spyOn(process, 'emitWarning')
      .mockImplementation(() => undefined);
    const warnings = (): unknown[] =>
      emitWarning.mock.calls.map(([warning]) =>
        warning instanceof Error ? warning.name : warning,
      );
    try {
      // Control: the same detection does see the warning an overloaded emitter raises.
      const overloaded = new EventEmitter();
      for (let i = 0; i < 11; i++)
        overloaded.on('control-rotate', () => undefined);
      expect(warnings()).toEqual(['MaxListenersExceededWarning']);
      emitWarning.mockClear();

      const breakers = registry();
      for (let i = 0; i < 1_000; i++) breakers.get(`tool_${i}`);
      breakers.get('other_width', { windowMs: 10_000, buckets: 10 });
      await failTimes(breakers.get('tool_1'), 1);
      expect(warnings()).toEqual([]);
      expect(bucketTicker.stats()).toEqual({
        intervals: 2,
        breakers: 1_001,
      });
      expect(vi.getTimerCount()).toBe(2);
      breakers.shutdownAll();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      emitWarning.mockRestore();
    }
  });
});
