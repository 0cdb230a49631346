import { describe, expect, it } from 'vitest';
import { parseTraceTable } from './parse-trace-table.ts';
import { candidateRules } from './rule-index.ts';

const table = parseTraceTable(
  {
    harness: 'two-keys',
    detect: [[{ path: 'x', exists: true }]],
    rules: [
      {
        kind: 'start',
        when: [{ path: 'msg.type', equals: 'begin' }],
        id: 'id',
      },
      { kind: 'start', when: [{ path: 'type', in: ['a', 'b'] }], id: 'id' },
      { kind: 'denial', when: [{ path: 'x', exists: true }], id: 'id' },
      {
        kind: 'start',
        when: [{ path: 'msg.type', equals: 'begin' }],
        id: 'other',
      },
    ],
  },
  { source: 'two-keys.json' },
);
const [beginA, typeAB, always, beginB] = table.rules;

describe('candidateRules', () => {
  it('offers only the rules keyed on the line value, plus unkeyed rules, in table order', () => {
    expect(candidateRules(table.index, { type: 'a' })).toEqual([
      typeAB,
      always,
    ]);
    expect(candidateRules(table.index, { msg: { type: 'begin' } })).toEqual([
      beginA,
      always,
      beginB,
    ]);
    expect(candidateRules(table.index, { type: 'zzz' })).toEqual([always]);
  });

  it('merges two matching keys without losing table order', () => {
    expect(
      candidateRules(table.index, { type: 'b', msg: { type: 'begin' } }),
    ).toEqual([beginA, typeAB, always, beginB]);
  });
});
