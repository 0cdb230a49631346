import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { loadTraceTable } from './load-trace-table.ts';
import { type Logger, silentLogger } from '@candor/tools';
import { TraceNormaliser } from './trace-normaliser.ts';
import type { TraceNormaliserOptions } from './trace-normaliser-options.ts';
import { malformedSampleLimit } from './trace-summary.ts';

const acme = loadTraceTable(
  new URL('__fixtures__/invented/acme-agent.table.json', import.meta.url),
);

function run(lines: readonly string[], options: TraceNormaliserOptions = {}) {
  const normaliser = new TraceNormaliser(options);
  const records: CallRecord[] = [];
  for (const line of lines) records.push(...normaliser.pushLine(line));
  records.push(...normaliser.end());
  return { records, summary: normaliser.summary };
}

const line = (value: object) => JSON.stringify(value);

function recordingLogger() {
  const entries: { level: string; details: object; message: string }[] = [];
  const logger: Logger = {
    ...silentLogger,
    debug(details, message = '') {
      entries.push({ level: 'debug', details, message });
    },
    warn(details, message = '') {
      entries.push({ level: 'warn', details, message });
    },
  };
  return { logger, entries };
}

describe('TraceNormaliser', () => {
  it('counts malformed lines with their numbers and keeps reading', () => {
    const { logger, entries } = recordingLogger();
    const { records, summary } = run(
      [
        '\uFEFF' + line({ acme: 1, ev: 'call', cid: 'a', fn: 'f' }),
        '{"acme":1,',
        '',
        '   ',
        '"just a string"',
        line({ acme: 1, ev: 'done', cid: 'a', verdict: 'fine' }),
      ],
      { tables: [acme], logger },
    );
    expect(records.map((record) => [record.callId, record.outcome])).toEqual([
      ['a', 'success'],
    ]);
    expect(summary).toMatchObject({ lines: 6, malformed: 2, calls: 1 });
    expect(summary.malformedLines.map((malformed) => malformed.line)).toEqual([
      2, 5,
    ]);
    expect(summary.malformedLines[1]?.message).toBe('not a JSON object');
    const warnings = entries.filter((entry) => entry.level === 'warn');
    expect(warnings.map((entry) => entry.details)).toEqual([
      { line: 2, reason: expect.any(String) as unknown },
      { line: 5, reason: 'not a JSON object' },
    ]);
  });

  it('keeps only the first malformed lines by number but counts them all', () => {
    const { summary } = run(
      Array.from({ length: malformedSampleLimit + 5 }, () => '{'),
      {
        tables: [acme],
      },
    );
    expect(summary.malformed).toBe(malformedSampleLimit + 5);
    expect(summary.malformedLines).toHaveLength(malformedSampleLimit);
  });

  it('replays lines read before the format was recognised', () => {
    const { records, summary } = run(
      [
        line({ ev: 'call', cid: 'early', fn: 'fetch' }),
        line({ acme: 1, ev: 'done', cid: 'early', verdict: 'broken' }),
      ],
      { tables: [acme] },
    );
    expect(summary.harness).toBe('acme-agent');
    expect(records).toEqual([
      expect.objectContaining({
        callId: 'early',
        tool: 'fetch',
        outcome: 'error',
        line: 1,
      }),
    ]);
  });

  it('reports an unrecognised trace as such, with no calls', () => {
    const { records, summary } = run([
      line({ hello: 'world' }),
      line({ x: 1 }),
    ]);
    expect(records).toEqual([]);
    expect(summary).toMatchObject({ harness: null, calls: 0, unrecognised: 2 });
  });

  it('rejects an unknown harness name or a bad window', () => {
    expect(
      () => new TraceNormaliser({ harness: 'cursor', tables: [acme] }),
    ).toThrow('unknown harness "cursor" (known: auto, acme-agent)');
    expect(() => new TraceNormaliser({ window: 0 })).toThrow(RangeError);
  });

  it('emits settled calls at a flush line and keeps calls in flight until the end', () => {
    const normaliser = new TraceNormaliser({ tables: [acme] });
    normaliser.pushLine(line({ acme: 1, ev: 'call', cid: 'done-1', fn: 'f' }));
    normaliser.pushLine(line({ acme: 1, ev: 'call', cid: 'open-1', fn: 'g' }));
    expect(
      normaliser.pushLine(
        line({ acme: 1, ev: 'done', cid: 'done-1', verdict: 'fine' }),
      ),
    ).toEqual([]);
    const flushed = normaliser.pushLine(line({ acme: 1, ev: 'bye' }));
    expect(flushed.map((record) => record.callId)).toEqual(['done-1']);
    const rest = normaliser.end();
    expect(rest).toEqual([
      expect.objectContaining({ callId: 'open-1', outcome: 'unknown' }),
    ]);
    expect(() => normaliser.pushLine('{}')).toThrow('pushLine after end()');
    expect(normaliser.end()).toEqual([]);
  });

  it('applies a late denial that arrives after the outcome but before the flush', () => {
    const { records } = run(
      [
        line({
          type: 'assistant',
          message: {
            content: [{ type: 'tool_use', id: 't1', name: 'Write', input: {} }],
          },
        }),
        line({
          type: 'user',
          message: {
            content: [
              { type: 'tool_result', tool_use_id: 't1', is_error: true },
            ],
          },
        }),
        line({
          type: 'result',
          num_turns: 1,
          permission_denials: [{ tool_use_id: 't1', tool_name: 'Write' }],
        }),
      ],
      { harness: 'claude-code' },
    );
    expect(records).toEqual([
      expect.objectContaining({
        callId: 't1',
        outcome: 'denied',
        denialReason: 'permission_denials',
      }),
    ]);
  });

  it('lets the last outcome line of a held call win', () => {
    const part = (status: string) =>
      line({
        type: 'tool_use',
        sessionID: 's',
        part: {
          type: 'tool',
          id: 'prt_1',
          callID: 'call_1',
          tool: 'bash',
          state: { status, input: {} },
        },
      });
    const { records } = run([part('running'), part('completed')], {
      harness: 'opencode',
    });
    expect(records).toEqual([
      expect.objectContaining({
        callId: 'call_1',
        outcome: 'success',
        vendorStatus: 'completed',
      }),
    ]);
  });

  it('emits a call as soon as its outcome is known when the table does not hold', () => {
    const normaliser = new TraceNormaliser({ harness: 'gemini' });
    expect(
      normaliser.pushLine(
        line({
          type: 'tool_use',
          tool_id: 't1',
          tool_name: 'ls',
          parameters: {},
        }),
      ),
    ).toEqual([]);
    expect(
      normaliser.pushLine(
        line({ type: 'tool_result', tool_id: 't1', status: 'success' }),
      ),
    ).toEqual([expect.objectContaining({ callId: 't1', outcome: 'success' })]);
  });

  it('holds at most `window` calls, emitting the oldest as it stands', () => {
    const normaliser = new TraceNormaliser({ tables: [acme], window: 2 });
    const started = ['c1', 'c2', 'c3'].flatMap((cid) =>
      normaliser.pushLine(line({ acme: 1, ev: 'call', cid, fn: 'f' })),
    );
    expect(started).toEqual([
      expect.objectContaining({ callId: 'c1', outcome: 'unknown' }),
    ]);
    expect(normaliser.summary.evicted).toBe(1);
    expect(normaliser.end().map((record) => record.callId)).toEqual([
      'c2',
      'c3',
    ]);
  });

  it('evicts in order of first appearance across thousands of calls and flushes', () => {
    const normaliser = new TraceNormaliser({ tables: [acme], window: 10 });
    const emitted: string[] = [];
    for (let call = 0; call < 3000; call += 1) {
      const cid = `c${String(call)}`;
      emitted.push(
        ...normaliser
          .pushLine(line({ acme: 1, ev: 'call', cid, fn: 'f' }))
          .map((r) => r.callId),
      );
      if (call % 2 === 0) {
        emitted.push(
          ...normaliser
            .pushLine(line({ acme: 1, ev: 'done', cid, verdict: 'fine' }))
            .map((r) => r.callId),
        );
      }
      if (call % 1000 === 999) {
        emitted.push(
          ...normaliser
            .pushLine(line({ acme: 1, ev: 'bye' }))
            .map((r) => r.callId),
        );
      }
    }
    emitted.push(...normaliser.end().map((record) => record.callId));
    expect(new Set(emitted).size).toBe(3000);
    expect(emitted).toHaveLength(3000);
    // Odd calls never settle: they leave only through the window (or the end), oldest first.
    const odd = emitted.filter((id) => Number(id.slice(1)) % 2 === 1);
    expect(odd).toEqual(
      [...odd].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))),
    );
    expect(normaliser.summary).toMatchObject({
      calls: 3000,
      success: 1500,
      unknown: 1500,
    });
  });

  it('finds every open call by its id however calls interleave, and ends in order of first appearance', () => {
    // The newest call is kept apart from the others (see #newest): each step here moves one
    // between the two, or finds it in either.
    const call = (cid: string) => line({ acme: 1, ev: 'call', cid, fn: cid });
    const done = (cid: string, verdict: string) =>
      line({ acme: 1, ev: 'done', cid, verdict, why: 'policy' });
    const normaliser = new TraceNormaliser({ tables: [acme] });
    const seen = (lines: string[]) =>
      lines
        .flatMap((text) => normaliser.pushLine(text))
        .map((record) => [record.callId, record.outcome, record.line]);
    expect(
      seen([
        call('a'),
        call('b'),
        done('b', 'fine'),
        call('c'),
        done('a', 'broken'),
        call('d'),
      ]),
    ).toEqual([]);
    expect(seen([line({ acme: 1, ev: 'bye' })])).toEqual([
      ['a', 'error', 1],
      ['b', 'success', 2],
    ]);
    // c was opened before d, and is found after d opened; d is the newest, never settled.
    expect(seen([done('c', 'vetoed'), call('e')])).toEqual([]);
    expect(
      normaliser
        .end()
        .map((record) => [record.callId, record.outcome, record.denialReason]),
    ).toEqual([
      ['c', 'denied', 'policy'],
      ['d', 'unknown', null],
      ['e', 'unknown', null],
    ]);
    expect(normaliser.summary).toMatchObject({ calls: 5, evicted: 0 });
  });

  it('with a window of one, evicts the older call each time a new one opens', () => {
    const normaliser = new TraceNormaliser({ tables: [acme], window: 1 });
    const emitted = ['a', 'b', 'c'].flatMap((cid) =>
      normaliser
        .pushLine(line({ acme: 1, ev: 'call', cid, fn: 'f' }))
        .map((record) => record.callId),
    );
    expect(emitted).toEqual(['a', 'b']);
    // The newest is still found by its id.
    normaliser.pushLine(
      line({ acme: 1, ev: 'done', cid: 'c', verdict: 'fine' }),
    );
    expect(
      normaliser
        .pushLine(line({ acme: 1, ev: 'bye' }))
        .map((record) => [record.callId, record.outcome]),
    ).toEqual([['c', 'success']]);
    expect(normaliser.end()).toEqual([]);
    expect(normaliser.summary).toMatchObject({ calls: 3, evicted: 2 });
  });

  it('skips a matching line that has no call id, and says so at debug level', () => {
    const { logger, entries } = recordingLogger();
    const { records } = run([line({ acme: 1, ev: 'call', fn: 'f' })], {
      tables: [acme],
      logger,
    });
    expect(records).toEqual([]);
    expect(entries).toContainEqual(
      expect.objectContaining({
        level: 'debug',
        details: { line: 1, kind: 'start' },
      }),
    );
  });
});
