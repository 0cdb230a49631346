import { describe, expect, it } from 'vitest';
import { retryAfterMsFrom } from './retry-after.ts';

describe('retryAfterMsFrom', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');

  it.each([
    ['retry-after seconds', { 'retry-after': '2' }, 2000],
    ['fractional seconds', { 'Retry-After': '1.5' }, 1500],
    [
      'retry-after-ms wins',
      { 'retry-after-ms': '250', 'retry-after': '9' },
      250,
    ],
    ['an HTTP date', { 'retry-after': 'Mon, 30 Nov 2026 12:00:05 GMT' }, 5000],
    [
      'a date in the past',
      { 'retry-after': 'Mon, 30 Nov 2026 11:00:00 GMT' },
      0,
    ],
    ['garbage', { 'retry-after': 'soon' }, undefined],
    [
      'a bad retry-after-ms falls back',
      { 'retry-after-ms': 'x', 'retry-after': '3' },
      3000,
    ],
    ['nothing', {}, undefined],
    ['an array value', { 'retry-after': ['4'] }, 4000],
  ])('%s', (_label, headers, expected) => {
    expect(retryAfterMsFrom(headers, now)).toBe(expected);
  });

  it('reads a fetch Headers object', () => {
    expect(retryAfterMsFrom(new Headers({ 'Retry-After': '7' }), now)).toBe(
      7000,
    );
  });

  it('returns undefined for missing or hostile containers', () => {
    expect(retryAfterMsFrom(undefined)).toBeUndefined();
    expect(retryAfterMsFrom(null)).toBeUndefined();
    expect(
      retryAfterMsFrom({
        get() {
          throw new Error('boom');
        },
      }),
    ).toBeUndefined();
  });
});
