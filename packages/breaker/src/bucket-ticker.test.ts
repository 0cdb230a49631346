import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bucketTicker } from './bucket-ticker.ts';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('bucketTicker', () => {
  it('shares one interval per bucket width and stops it with the last lease', async () => {
    const a = bucketTicker.attach(1_000);
    const b = bucketTicker.attach(1_000);
    const c = bucketTicker.attach(250);
    expect(vi.getTimerCount()).toBe(2);
    expect(bucketTicker.stats()).toEqual({ intervals: 2, controllers: 3 });
    const ticks = { a: 0, b: 0, c: 0 };
    a.controller.on('rotate', () => ticks.a++);
    b.controller.on('rotate', () => ticks.b++);
    c.controller.on('rotate', () => ticks.c++);

    await vi.advanceTimersByTimeAsync(2_000);
    expect(ticks).toEqual({ a: 2, b: 2, c: 8 });

    a.release();
    a.release();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ticks).toEqual({ a: 2, b: 3, c: 12 });
    expect(bucketTicker.stats()).toEqual({ intervals: 2, controllers: 2 });

    b.release();
    c.release();
    expect(vi.getTimerCount()).toBe(0);
    expect(bucketTicker.stats()).toEqual({ intervals: 0, controllers: 0 });
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
    const lease = bucketTicker.attach(500);
    expect(unref).toHaveBeenCalledTimes(1);
    lease.release();
    spy.mockRestore();
  });
});
