import { ToolResponse } from '@candor/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bucketTicker } from './bucket-ticker.ts';
import { createToolBreaker, type ToolBreaker } from './tool-breaker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

// Real breakers on the one shared rotate controller of their bucket width, with the lean
// rotation withoutLatencies puts in opossum's place: windows, shutdown and reuse of a name.

const width = 1_100;
const options = {
  windowMs: width * 4,
  buckets: 4,
  minimumCalls: 2,
  failureRatePct: 50,
  resetTimeoutMs: 5_000,
};
const created: ToolBreaker[] = [];

function make(name: string): ToolBreaker {
  const breaker = createToolBreaker(name, options);
  created.push(breaker);
  return breaker;
}

async function calls(
  breaker: ToolBreaker,
  outcomes: readonly ('ok' | 'fail')[],
): Promise<void> {
  for (const outcome of outcomes) {
    await breaker.execute(async () =>
      outcome === 'ok'
        ? ToolResponse.success('ok')
        : ToolResponse.error('NETWORK_ERROR', 'down'),
    );
  }
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  for (const breaker of created.splice(0)) breaker.shutdown();
  vi.useRealTimers();
});

describe('breakers sharing one rotate controller', () => {
  it('count each window through rotations, and a shut-down breaker leaves no listener behind', async () => {
    const controller = bucketTicker.attach(width);
    const listeners = (): number => controller.listenerCount('rotate');
    const base = listeners();
    const a = make('a');
    const b = make('b');
    expect(listeners()).toBe(base + 2);
    await calls(a, ['ok', 'ok', 'fail']);
    await calls(b, ['ok']);
    await vi.advanceTimersByTimeAsync(width);
    await calls(a, ['ok']);
    expect(a.snapshot().window).toMatchObject({
      calls: 4,
      successes: 3,
      failures: 1,
      failureRatePct: 25,
    });
    expect(b.snapshot().window).toMatchObject({ calls: 1, successes: 1 });
    // The first bucket leaves the window after `buckets` rotations, the second one later.
    await vi.advanceTimersByTimeAsync(width * 3);
    expect(a.snapshot().window).toMatchObject({ calls: 1, successes: 1 });
    expect(b.snapshot().window.calls).toBe(0);

    a.shutdown();
    expect(listeners()).toBe(base + 1);
    // The same name again: a breaker of its own, on the same controller, from an empty window.
    const again = make('a');
    expect(listeners()).toBe(base + 2);
    expect(again.snapshot().window.calls).toBe(0);
    await calls(again, ['fail']);
    await vi.advanceTimersByTimeAsync(width);
    expect(again.snapshot().window).toMatchObject({ calls: 1, failures: 1 });
    again.shutdown();
    b.shutdown();
    expect(listeners()).toBe(base);
    bucketTicker.detach(width);
  });

  it('starts a recovered breaker from a clean window, and leaves its neighbours’ windows alone', async () => {
    const tool = make('tool');
    const neighbour = make('neighbour');
    await calls(tool, ['fail', 'fail']);
    expect(tool.state).toBe('open');
    await vi.advanceTimersByTimeAsync(options.resetTimeoutMs);
    expect(tool.state).toBe('half_open');
    await calls(neighbour, ['ok', 'ok', 'fail']);
    await calls(tool, ['ok']);
    expect(tool.state).toBe('closed');
    expect(tool.snapshot().window.calls).toBe(0);
    // The reset rotated only the recovered breaker's buckets.
    expect(neighbour.snapshot().window).toMatchObject({
      calls: 3,
      failures: 1,
    });
    // One failure right after recovery does not reopen it: the old failures are gone.
    await calls(tool, ['fail']);
    expect(tool.state).toBe('closed');
    expect(tool.snapshot().window).toMatchObject({ calls: 1, failures: 1 });
    // The shared ticks go on rotating both after the reset.
    await vi.advanceTimersByTimeAsync(options.windowMs);
    expect(tool.snapshot().window.calls).toBe(0);
    expect(neighbour.snapshot().window.calls).toBe(0);
  });
});
