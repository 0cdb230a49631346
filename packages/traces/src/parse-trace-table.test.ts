import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  builtinHarnesses,
  builtinTraceTables,
} from './builtin-trace-tables.ts';
import { loadTraceTable } from './load-trace-table.ts';
import { parseTraceTable } from './parse-trace-table.ts';
import { TraceTableError } from './trace-table-error.ts';
import { TraceTableSchema } from './trace-table-schema.ts';

const valid = {
  harness: 'acme',
  detect: [[{ path: 'acme', exists: true }]],
  rules: [
    {
      kind: 'start',
      when: [{ path: 'ev', equals: 'call' }],
      id: 'cid',
      tool: 'fn',
    },
    {
      kind: 'outcome',
      when: [{ path: 'ev', equals: 'done' }],
      id: 'cid',
      status: { from: [{ path: 'verdict' }], map: 'verdict_map' },
    },
  ],
  verdict_map: { fine: 'success', broken: 'error' },
};

function problemsOf(value: unknown): string[] {
  try {
    parseTraceTable(value, { source: 'acme.json' });
  } catch (error: unknown) {
    if (error instanceof TraceTableError) {
      expect(error.source).toBe('acme.json');
      return error.message.split('\n');
    }
    throw error;
  }
  throw new Error('expected the table to be rejected');
}

describe('parseTraceTable', () => {
  it('accepts a valid table and compiles its translation map', () => {
    const table = parseTraceTable(valid, { source: 'acme.json' });
    expect(table.harness).toBe('acme');
    expect(table.origin).toBe('acme.json');
    expect(table.rules[1]?.status?.map.get('broken')).toBe('error');
    expect(table.rules[1]?.status?.map.has('*')).toBe(false);
  });

  // builtinTraceTables() compiles the shipped files without validating them in each process:
  // this is the validation, and it must leave every file exactly as written.
  it.each(builtinHarnesses)(
    'tables/%s.json is valid and validation changes nothing in it',
    (harness) => {
      const raw: unknown = JSON.parse(
        readFileSync(
          new URL(`../tables/${harness}.json`, import.meta.url),
          'utf8',
        ),
      );
      const parsed = TraceTableSchema.safeParse(raw);
      expect(parsed.error?.issues ?? []).toEqual([]);
      expect(parsed.data).toStrictEqual(raw);
    },
  );

  it('ships a valid table for each shipped harness', () => {
    expect(builtinTraceTables().map((table) => table.harness)).toEqual([
      ...builtinHarnesses,
    ]);
  });

  it('reads key_of fields and key_of status words', () => {
    const table = parseTraceTable(
      {
        harness: 'oneof',
        detect: [[{ path: 'call', exists: true }]],
        rules: [
          {
            kind: 'outcome',
            when: [{ path: 'ev', equals: 'done' }],
            id: 'id',
            tool: { key_of: 'call' },
            status: { from: [{ key_of: 'call.*.result' }], map: 'case_map' },
          },
        ],
        case_map: { ok: 'success', failed: 'error' },
      },
      { source: 'oneof.json' },
    );
    const line = { call: { grepCall: { result: { failed: { code: 2 } } } } };
    expect(table.rules[0]?.tool?.read(line, line)).toBe('grepCall');
    expect(table.rules[0]?.status?.from[0]).toMatchObject({
      keyOf: true,
      word: undefined,
    });
    expect(
      problemsOf({
        ...valid,
        rules: [{ ...valid.rules[0], tool: { key_of: 'a b' } }],
      }),
    ).toEqual([expect.stringMatching(/^acme\.json: rules\[0\]\.tool/u)]);
  });

  it('names the file and the field of each problem', () => {
    const { harness: _harness, ...withoutHarness } = valid;
    expect(problemsOf(withoutHarness)).toEqual([
      expect.stringMatching(/^acme\.json: harness: /u),
    ]);
    expect(problemsOf({ ...valid, verdict_map: { fine: 'fine' } })).toEqual([
      'acme.json: verdict_map.fine: expected "success", "partial", "error", "denied", "unknown"',
    ]);
    expect(problemsOf({ ...valid, rulez: [] })).toEqual([
      'acme.json: rulez: is not a known field (translation tables must end in "_map")',
    ]);
  });

  it('tells a table written with the old words what to write instead', () => {
    expect(
      problemsOf({ ...valid, verdict_map: { fine: 'ok', odd: '' } }),
    ).toEqual([
      'acme.json: verdict_map.fine: expected "success", "partial", "error", "denied", "unknown"; "ok" is the old word for "success"',
      'acme.json: verdict_map.odd: expected "success", "partial", "error", "denied", "unknown"; "" is the old word for "unknown"',
    ]);
    const rules: unknown[] = [
      valid.rules[0],
      {
        ...valid.rules[1],
        status: {
          from: [{ path: 'verdict' }],
          map: 'verdict_map',
          absent: 'ok',
        },
      },
    ];
    expect(problemsOf({ ...valid, rules })).toEqual([
      'acme.json: rules[1].status.absent: expected "success", "partial", "error", "denied", "unknown"; "ok" is the old word for "success"',
    ]);
    // A prototype name is an unknown word, not a lookup into the renames.
    expect(problemsOf({ ...valid, verdict_map: { fine: 'toString' } })).toEqual(
      [
        'acme.json: verdict_map.fine: expected "success", "partial", "error", "denied", "unknown"',
      ],
    );
  });

  it('accepts every outcome word in a map, and denied and partial mean what they say', () => {
    const table = parseTraceTable(
      {
        ...valid,
        verdict_map: {
          fine: 'success',
          half: 'partial',
          broken: 'error',
          vetoed: 'denied',
          later: 'unknown',
        },
      },
      { source: 'acme.json' },
    );
    const map = table.rules[1]?.status?.map;
    expect(map === undefined ? [] : [...map.values()]).toEqual([
      'success',
      'partial',
      'error',
      'denied',
      'unknown',
    ]);
  });

  it('rejects a status that names a map the file does not define', () => {
    const { verdict_map: _map, ...withoutMap } = valid;
    expect(problemsOf(withoutMap)).toEqual([
      'acme.json: rules[1].status.map: names "verdict_map", but the file defines no top-level "verdict_map"',
    ]);
  });

  it('rejects predicates with no operator, two operators or a broken pattern', () => {
    const detect = (predicate: object) =>
      problemsOf({ ...valid, detect: [[predicate]] });
    expect(detect({ path: 'a' })).toEqual([
      'acme.json: detect[0][0]: needs exactly one of equals, in, exists, matches (found none)',
    ]);
    expect(detect({ path: 'a', equals: 1, exists: true })).toEqual([
      'acme.json: detect[0][0]: needs exactly one of equals, in, exists, matches (found equals, exists)',
    ]);
    expect(detect({ path: 'a', matches: '(' })).toEqual([
      expect.stringMatching(
        /^acme\.json: detect\[0\]\[0\]\.matches: is not a valid regular expression/u,
      ),
    ]);
    expect(detect({ path: 'a..b', exists: true })).toEqual([
      'acme.json: detect[0][0].path: expected a dot path such as "item.status" or "$.timestamp"',
    ]);
  });

  it('rejects holding calls with no flush line to release them', () => {
    expect(problemsOf({ ...valid, hold_until_flush: true })).toEqual([
      'acme.json: hold_until_flush: needs "flush" lines to release the held calls',
    ]);
  });

  it('rejects fields on the wrong kind of rule and outcome rules without a status', () => {
    expect(
      problemsOf({
        ...valid,
        rules: [
          { kind: 'start', id: 'cid', exit_code: 'rc' },
          { kind: 'outcome', id: 'cid' },
          { kind: 'finish', id: 'cid' },
        ],
      }),
    ).toEqual([
      'acme.json: rules[0].exit_code: is only allowed on "outcome" rules',
      'acme.json: rules[1].status: is required on "outcome" rules',
      'acme.json: rules[2].kind: expected one of start, outcome, denial',
    ]);
  });
});

describe('loadTraceTable', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'candor-table-'));
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('loads a table file from disk', () => {
    const file = join(scratch, 'acme.json');
    writeFileSync(file, JSON.stringify(valid));
    expect(loadTraceTable(file).origin).toBe(file);
  });

  it('names the file when it is missing or not JSON', () => {
    const missing = join(scratch, 'nope.json');
    expect(() => loadTraceTable(missing)).toThrow(
      `${missing}: cannot read the file (ENOENT)`,
    );
    const broken = join(scratch, 'broken.json');
    writeFileSync(broken, '{"harness":');
    expect(() => loadTraceTable(broken)).toThrow(
      new RegExp(
        `^${broken.replaceAll(/[.*+?^${}()|[\]\\/]/gu, '\\$&')}: is not valid JSON`,
        'u',
      ),
    );
  });
});
