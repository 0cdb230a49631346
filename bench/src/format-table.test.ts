import { describe, expect, it } from 'vitest';
import {
  formatDuration,
  formatMegabytes,
  formatRatio,
  formatThroughput,
  markdownTable,
} from './format-table.ts';

describe('formatDuration', () => {
  it.each([
    [0, '0.00 ns'],
    [105, '105 ns'],
    [1_234, '1.23 µs'],
    [25_000, '25.0 µs'],
    [570_000, '570 µs'],
    [4_040_000, '4.04 ms'],
    [2_500_000_000, '2.50 s'],
  ])('shows %d ns as %s', (ns, shown) => {
    expect(formatDuration(ns)).toBe(shown);
  });

  it('refuses a negative or non-finite duration with a clear message', () => {
    expect(() => formatDuration(-1)).toThrow(/at least 0, got -1/);
    expect(() => formatDuration(Number.NaN)).toThrow(/got NaN/);
  });
});

describe('formatRatio, formatMegabytes and formatThroughput', () => {
  it('shows ratios with three significant digits', () => {
    expect(formatRatio(1)).toBe('1.00×');
    expect(formatRatio(19.83)).toBe('19.8×');
    expect(formatRatio(1299.4)).toBe('1299×');
  });

  it('shows heap deltas in MB with a sign, since a delta can be negative', () => {
    expect(formatMegabytes(1_704_728)).toBe('1.70 MB');
    expect(formatMegabytes(-250_000)).toBe('−0.25 MB');
    expect(() => formatMegabytes(Number.POSITIVE_INFINITY)).toThrow(
      /must be finite/,
    );
  });

  it('shows throughput in MB/s', () => {
    expect(formatThroughput(242_000_000)).toBe('242 MB/s');
  });
});

describe('markdownTable', () => {
  it('left-aligns the first column and right-aligns the numbers', () => {
    expect(
      markdownTable(
        ['layer', 'time'],
        [
          ['bare', '1 ns'],
          ['registry', '2 µs'],
        ],
      ),
    ).toBe(
      [
        '| layer | time |',
        '| --- | ---: |',
        '| bare | 1 ns |',
        '| registry | 2 µs |',
      ].join('\n'),
    );
  });

  it('escapes a pipe so a cell cannot start a new column', () => {
    expect(markdownTable(['a'], [['x | y']])).toContain('| x \\| y |');
  });

  it('refuses a row whose cells do not match the columns', () => {
    expect(() => markdownTable(['a', 'b'], [['only one']])).toThrow(
      'Table row 1 has 1 cells; the table has 2 columns',
    );
  });
});
