import { describe, expect, it } from 'vitest';
import { measureResult } from './measure-result.ts';

describe('measureResult', () => {
  it('measures strings, content blocks and other values', () => {
    expect(measureResult('hello')).toBe(5);
    expect(
      measureResult([
        { type: 'text', text: 'abc' },
        { type: 'text', text: 'de' },
      ]),
    ).toBe(5);
    expect(measureResult({ stdout: '' })).toBe('{"stdout":""}'.length);
  });

  it('tells an empty result (0) from no result (null)', () => {
    expect(measureResult('')).toBe(0);
    expect(measureResult(null)).toBeNull();
    expect(measureResult(undefined)).toBeNull();
  });
});
