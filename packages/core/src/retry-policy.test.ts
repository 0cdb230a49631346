import { describe, expect, it } from 'vitest';
import {
  retryDelayMs,
  retryPolicy,
  shouldRetryStatus,
} from './retry-policy.ts';

describe('retry policy', () => {
  const policy = retryPolicy({ maxRetryDelayMs: 5000, random: () => 0 });

  it.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [503, true],
    [529, true],
    [400, false],
    [401, false],
    [404, false],
  ])('status %i retries: %s', (status, expected) => {
    expect(shouldRetryStatus(status, new Headers())).toBe(expected);
  });

  it('obeys x-should-retry', () => {
    expect(
      shouldRetryStatus(503, new Headers({ 'x-should-retry': 'false' })),
    ).toBe(false);
    expect(
      shouldRetryStatus(400, new Headers({ 'x-should-retry': 'true' })),
    ).toBe(true);
  });

  it('waits what the server asks, capped', () => {
    expect(
      retryDelayMs(policy, 0, new Headers({ 'retry-after-ms': '120' })),
    ).toBe(120);
    expect(retryDelayMs(policy, 0, new Headers({ 'retry-after': '2' }))).toBe(
      2000,
    );
    expect(retryDelayMs(policy, 0, new Headers({ 'retry-after': '600' }))).toBe(
      5000,
    );
  });

  it('backs off exponentially with jitter otherwise', () => {
    expect(
      [0, 1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy, attempt)),
    ).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    const jittered = retryPolicy({ random: () => 0.999 });
    expect(retryDelayMs(jittered, 0)).toBe(375);
  });

  it('validates its options', () => {
    expect(() => retryPolicy({ maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => retryPolicy({ maxRetryDelayMs: Number.NaN })).toThrow(
      /maxRetryDelayMs/,
    );
  });
});
