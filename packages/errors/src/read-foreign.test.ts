import {
  everyTrapThrows,
  revokedProxy,
  throwingGetters,
  throwingProxy,
} from '@candor/hostile-fixtures';
import { describe, expect, it } from 'vitest';
import { readForeign, readOwnFields, readProperty } from './read-foreign.ts';

describe('readProperty', () => {
  it('reads a field, and gives undefined for a primitive, null or a read that throws', () => {
    expect(readProperty({ code: 'E' }, 'code')).toBe('E');
    expect(
      readProperty(
        Object.assign(() => 1, { code: 2 }),
        'code',
      ),
    ).toBe(2);
    expect(readProperty('text', 'length')).toBeUndefined();
    expect(readProperty(null, 'code')).toBeUndefined();
    expect(readProperty(throwingProxy().logger, 'code')).toBeUndefined();
    expect(readProperty(revokedProxy(), 'code')).toBeUndefined();
  });
});

describe('readForeign', () => {
  it('gives the value read, or what the read threw, as it was thrown', () => {
    expect(readForeign(() => 42)).toEqual({ ok: true, value: 42 });
    const { logger } = throwingProxy('trap down');
    const failed = readForeign(() => logger.child);
    expect(failed.ok).toBe(false);
    expect(!failed.ok && failed.error).toEqual(new Error('trap down'));
    const thrownString = readForeign(() => {
      // A trap may throw anything; the read keeps it as thrown.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw 'not an Error';
    });
    expect(thrownString).toEqual({ ok: false, error: 'not an Error' });
  });
});

describe('readOwnFields', () => {
  it('copies own enumerable fields once each, in order, leaving undefined out', () => {
    let reads = 0;
    const source = {
      a: 1,
      b: undefined,
      get c(): number {
        reads += 1;
        return reads;
      },
    };
    Object.defineProperty(source, 'hidden', { value: 1, enumerable: false });
    const read = readOwnFields(source);
    expect(read).toEqual({ ok: true, value: { a: 1, c: 1 } });
    expect(read.ok && Object.keys(read.value)).toEqual(['a', 'c']);
    expect(reads).toBe(1);
  });

  it('keeps __proto__ an own field, never the prototype', () => {
    const read = readOwnFields(JSON.parse('{"__proto__":{"x":1}}') as object);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(Object.getPrototypeOf(read.value)).toBe(Object.prototype);
    expect(Object.keys(read.value)).toEqual(['__proto__']);
  });

  it('gives what a throwing getter or Proxy trap threw, never throws', () => {
    const getters = readOwnFields(throwingGetters().logger);
    // The fixture's getters are not enumerable, so its fields are not read at all.
    expect(getters).toEqual({ ok: true, value: {} });
    const enumerableGetter = readOwnFields({
      get boom(): never {
        throw new Error('getter down');
      },
    });
    expect(enumerableGetter).toEqual({
      ok: false,
      error: new Error('getter down'),
    });
    expect(readOwnFields(everyTrapThrows('no keys').proxy)).toEqual({
      ok: false,
      error: new Error('no keys'),
    });
  });
});
