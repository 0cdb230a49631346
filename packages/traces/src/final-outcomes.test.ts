import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { parseTraceTable } from './parse-trace-table.ts';
import { TraceNormaliser } from './trace-normaliser.ts';
import { TraceTableError } from './trace-table-error.ts';

// A table that holds calls until its `bye` line, like claude-code's run-end denials, with
// `final_outcomes` saying a success cannot change any more.
const definition = {
  harness: 'holder',
  detect: [[{ path: 'h', exists: true }]],
  hold_until_flush: true,
  final_outcomes: ['success'],
  flush: [[{ path: 'ev', equals: 'bye' }]],
  rules: [
    {
      kind: 'start',
      when: [{ path: 'ev', equals: 'call' }],
      id: 'id',
      tool: 'fn',
    },
    {
      kind: 'outcome',
      when: [{ path: 'ev', equals: 'done' }],
      id: 'id',
      status: { from: [{ path: 'ok' }], map: 'ok_map' },
    },
    {
      kind: 'denial',
      when: [{ path: 'veto', exists: true }],
      id: 'veto',
      reason: { value: 'vetoed' },
    },
  ],
  ok_map: { true: 'success', false: 'error' },
};

const line = (value: object): string => JSON.stringify({ h: 1, ...value });

describe('final_outcomes', () => {
  it('emits a final success on its own line and holds any other outcome for the flush', () => {
    const table = parseTraceTable(definition, { source: 'holder.json' });
    const provisional: string[] = [];
    const normaliser = new TraceNormaliser({
      tables: [table],
      onProvisional: (record) => provisional.push(record.callId),
    });
    const at = (text: string): string[] =>
      normaliser.pushLine(text).map((record: CallRecord) => record.callId);
    expect(at(line({ ev: 'call', id: 'a', fn: 'f' }))).toEqual([]);
    expect(at(line({ ev: 'call', id: 'b', fn: 'f' }))).toEqual([]);
    // b fails: held, reported provisionally, because a later line may still deny it.
    expect(at(line({ ev: 'done', id: 'b', ok: false }))).toEqual([]);
    expect(provisional).toEqual(['b']);
    // a succeeds: out at once, not held behind b.
    expect(at(line({ ev: 'done', id: 'a', ok: true }))).toEqual(['a']);
    // c succeeds, but the same line denies it: the denial applies and c is held like b.
    expect(
      at(line({ ev: 'done', id: 'c', ok: true, veto: 'c', fn: 'g' })),
    ).toEqual([]);
    const late = normaliser.pushLine(line({ ev: 'bye', veto: 'b' }));
    expect(late.map((record) => [record.callId, record.outcome])).toEqual([
      ['b', 'denied'],
      ['c', 'denied'],
    ]);
    expect(normaliser.end()).toEqual([]);
    expect(normaliser.summary).toMatchObject({
      calls: 3,
      success: 1,
      denied: 2,
    });
  });

  it('holds every settled call when the table names no final outcome', () => {
    const { final_outcomes: _final, ...holdAll } = definition;
    const normaliser = new TraceNormaliser({
      tables: [parseTraceTable(holdAll, { source: 'all.json' })],
    });
    normaliser.pushLine(line({ ev: 'call', id: 'a', fn: 'f' }));
    expect(
      normaliser.pushLine(line({ ev: 'done', id: 'a', ok: true })),
    ).toEqual([]);
    expect(
      normaliser.pushLine(line({ ev: 'bye' })).map((record) => record.callId),
    ).toEqual(['a']);
  });

  it('is rejected without hold_until_flush, and names an outcome word', () => {
    const { hold_until_flush: _hold, flush: _flush, ...noHold } = definition;
    expect(() => parseTraceTable(noHold, { source: 'x.json' })).toThrow(
      TraceTableError,
    );
    expect(() =>
      parseTraceTable(
        { ...definition, final_outcomes: ['completed'] },
        { source: 'x.json' },
      ),
    ).toThrow(/final_outcomes\[0\]/u);
  });
});
