import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bucketTicker } from './bucket-ticker.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('bucketTicker', () => {
  it('shares one interval and one controller per bucket width and stops them with the last detach', async () => {
    const a = bucketTicker.attach(1_000);
    const b = bucketTicker.attach(1_000);
    const c = bucketTicker.attach(250);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(vi.getTimerCount()).toBe(2);
    expect(bucketTicker.stats()).toEqual({ intervals: 2, breakers: 3 });
    const ticks = { a: 0, c: 0 };
    const onA = (): void => {
      ticks.a++;
    };
    a.on('rotate', onA);
    c.on('rotate', () => ticks.c++);

    await vi.advanceTimersByTimeAsync(2_000);
    expect(ticks).toEqual({ a: 2, c: 8 });

    bucketTicker.detach(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    // b still holds the 1,000 ms width, so its interval keeps ticking.
    expect(ticks).toEqual({ a: 3, c: 12 });
    expect(bucketTicker.stats()).toEqual({ intervals: 2, breakers: 2 });

    bucketTicker.detach(1_000);
    bucketTicker.detach(250);
    expect(vi.getTimerCount()).toBe(0);
    expect(bucketTicker.stats()).toEqual({ intervals: 0, breakers: 0 });
    // A width with nothing attached is ignored, and a later attach starts afresh.
    bucketTicker.detach(1_000);
    expect(bucketTicker.stats()).toEqual({ intervals: 0, breakers: 0 });
    const again = bucketTicker.attach(1_000);
    expect(again).not.toBe(a);
    expect(vi.getTimerCount()).toBe(1);
    bucketTicker.detach(1_000);
  });

  it('lets thousands of breakers listen to one controller without a MaxListeners warning', () => {
    const controller = bucketTicker.attach(500);
    expect(controller.getMaxListeners()).toBe(0);
    bucketTicker.detach(500);
  });

  it('unrefs its interval so an idle breaker never keeps the process alive', () => {
    const unref = vi.fn();
    const realSetInterval = globalThis.setInterval;
    const spy = vi
      .spyOn(globalThis, 'setInterval')
      .mockImplementation((...args: Parameters<typeof setInterval>) => {
        const timer = realSetInterval(...args);
        unref.mockImplementation(() => timer);
        return Object.assign(timer, { unref });
      });
    bucketTicker.attach(500);
    expect(unref).toHaveBeenCalledTimes(1);
    bucketTicker.detach(500);
    spy.mockRestore();
  });
});
