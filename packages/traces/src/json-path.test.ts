import { describe, expect, it } from 'vitest';
import { compilePath, firstKeyOf } from './json-path.ts';

describe('compilePath', () => {
  it('reads nested fields, and the root with $.', () => {
    const item = { a: { b: { c: 1 } } };
    expect(compilePath('a.b.c').read(item, {})).toBe(1);
    expect(compilePath('$.t').read(item, { t: 'root' })).toBe('root');
    expect(compilePath('a.x.c').read(item, {})).toBeUndefined();
  });

  it('steps into the one field of a one-key wrapper with *, whatever its name', () => {
    const line = {
      tool_call: { shellToolCall: { result: { failure: { exitCode: 2 } } } },
    };
    expect(compilePath('tool_call.*.result.*.exitCode').read(line, line)).toBe(
      2,
    );
    expect(compilePath('tool_call.*.args').read(line, line)).toBeUndefined();
    // A string or an empty object has no field to step into.
    expect(compilePath('*.x').read({ a: 'text' }, {})).toBeUndefined();
    expect(compilePath('a.*').read({ a: {} }, {})).toBeUndefined();
  });
});

describe('firstKeyOf', () => {
  it('names the first own field of an object, and nothing else', () => {
    expect(firstKeyOf({ rejected: {}, other: 1 })).toBe('rejected');
    expect(firstKeyOf({})).toBeUndefined();
    expect(firstKeyOf(['a'])).toBeUndefined();
    expect(firstKeyOf('success')).toBeUndefined();
    expect(firstKeyOf(null)).toBeUndefined();
    expect(firstKeyOf(Object.create({ inherited: 1 }) as object)).toBe(
      undefined,
    );
  });
});
