import { describe, expect, it } from 'vitest';
import { compileJsonPath } from './json-path.ts';

describe('compileJsonPath', () => {
  const value = { error: { retryable: true, 'odd key': [10, { deep: null }] } };

  it.each([
    ['$', value],
    ['$.error.retryable', true],
    ["$['error']['odd key'][0]", 10],
    ['$.error["odd key"][1].deep', null],
  ])('reads %s', (path, expected) => {
    expect(compileJsonPath(path).read(value)).toEqual({
      found: true,
      value: expected,
    });
  });

  it.each([
    '$.missing',
    '$.error.retryable.deeper',
    "$['error']['odd key'][5]",
    '$[0]',
  ])('reports %s as not found', (path) => {
    expect(compileJsonPath(path).read(value)).toEqual({ found: false });
  });

  it('does not read inherited properties', () => {
    expect(compileJsonPath('$.toString').read({})).toEqual({ found: false });
  });

  it.each([
    ['error.retryable', /must start with "\$"/],
    ['$.', /no key name after "\." at position 1/],
    ['$.a[*]', /not supported at position 3/],
    ['$..a', /no key name/],
    ["$['unterminated]", /not supported at position 1/],
  ])('refuses %s', (path, message) => {
    expect(() => compileJsonPath(path)).toThrow(message);
  });
});
