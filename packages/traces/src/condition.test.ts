import { describe, expect, it } from 'vitest';
import { allOf, anyOf, type Condition } from './condition.ts';

const is =
  (key: string, value: unknown): Condition =>
  (item) =>
    (item as Record<string, unknown>)[key] === value;

describe('allOf and anyOf', () => {
  const a = is('a', 1);
  const b = is('b', 2);
  const c = is('c', 3);
  const lines = [
    {},
    { a: 1 },
    { a: 1, b: 2 },
    { a: 1, b: 2, c: 3 },
    { b: 2, c: 3 },
  ];

  it('hold like every() and some() for lists of every length', () => {
    for (const list of [[], [a], [a, b], [a, b, c]]) {
      for (const line of lines) {
        expect(allOf(list)(line, line)).toBe(
          list.every((condition) => condition(line, line)),
        );
        expect(anyOf(list)(line, line)).toBe(
          list.some((condition) => condition(line, line)),
        );
      }
    }
  });

  it('passes the root along with the item', () => {
    const fromRoot: Condition = (_item, root) =>
      (root as { ok?: boolean }).ok === true;
    expect(allOf([a, fromRoot])({ a: 1 }, { ok: true })).toBe(true);
    expect(allOf([a, fromRoot])({ a: 1 }, { ok: false })).toBe(false);
    expect(anyOf([b, fromRoot])({}, { ok: true })).toBe(true);
  });
});
