import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinTraceTables } from './builtin-trace-tables.ts';
import type { CallRecord } from './call-record.ts';
import { loadTraceTable } from './load-trace-table.ts';
import { parseTraceTable, type TraceTable } from './parse-trace-table.ts';
import { TraceNormaliser } from './trace-normaliser.ts';

const fixtures = new URL('__fixtures__/', import.meta.url);
const acme = loadTraceTable(
  new URL('invented/acme-agent.table.json', fixtures),
);

function fixtureLines(): string[] {
  const lines: string[] = [];
  for (const folder of readdirSync(fixtures, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    const directory = new URL(`${folder.name}/`, fixtures);
    for (const file of readdirSync(directory)) {
      if (!file.endsWith('.jsonl')) continue;
      const text = readFileSync(new URL(file, directory), 'utf8');
      lines.push(...text.split('\n').filter((line) => line !== ''));
    }
  }
  return lines;
}

// What the normaliser would do with a parsed line: any rule (with an item passing `each_when`)
// or, for tables that hold calls, any flush alternative.
function anythingMatches(table: TraceTable, root: object): boolean {
  const ruleMatches = table.rules.some((rule) => {
    if (!rule.matches(root, root)) return false;
    if (rule.each === undefined) return true;
    const items = rule.each.read(root, root);
    const list: unknown[] = Array.isArray(items) ? items : [items];
    return list.some(
      (item) =>
        typeof item === 'object' &&
        item !== null &&
        rule.eachMatches(item, root),
    );
  });
  return ruleMatches || (table.holdUntilFlush && table.flushes(root, root));
}

function table(rules: unknown[]): TraceTable {
  return parseTraceTable(
    { harness: 'probe', detect: [[{ path: 'x', exists: true }]], rules },
    { source: 'probe.json' },
  );
}

function run(lines: readonly string[], harness: string) {
  const normaliser = new TraceNormaliser({
    harness,
    tables: [...builtinTraceTables(), acme],
  });
  const records: CallRecord[] = [];
  for (const line of lines) records.push(...normaliser.pushLine(line));
  records.push(...normaliser.end());
  return { records, summary: normaliser.summary };
}

describe('compileLineFilter', () => {
  it('never skips a fixture line that a rule or a flush of any table would match', () => {
    const lines = fixtureLines();
    expect(lines.length).toBeGreaterThan(50);
    let skipped = 0;
    for (const candidate of [...builtinTraceTables(), acme]) {
      const filter = candidate.lineFilter;
      expect(filter, candidate.harness).toBeDefined();
      for (const line of lines) {
        if (filter?.(line) !== false) continue;
        skipped += 1;
        const root = JSON.parse(line) as object;
        expect(anythingMatches(candidate, root), line).toBe(false);
      }
    }
    // The property above would hold for a filter that skips nothing.
    expect(skipped).toBeGreaterThan(100);
  });

  it('skips a line without the literals a table needs, and lets through the ones with them', () => {
    const codex = builtinTraceTables().find((t) => t.harness === 'codex');
    const filter = codex?.lineFilter;
    expect(
      filter?.(
        '{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"Done."}}',
      ),
    ).toBe(false);
    expect(
      filter?.(
        '{"type":"item.completed","item":{"id":"i","type":"command_execution","status":"completed"}}',
      ),
    ).toBe(true);
    // A literal inside a longer string is not the value itself, but letting it through is safe.
    expect(filter?.('{"type":"x","text":"\\"item.completed\\""}')).toBe(false);
  });

  it('parses every line that could spell a literal another way, or is not plainly an object', () => {
    const filter = builtinTraceTables().find(
      (t) => t.harness === 'gemini',
    )?.lineFilter;
    expect(filter?.('{"type":"message","content":"hi"}')).toBe(false);
    // `\u0075` is `u`: this line is a tool_use once parsed.
    expect(filter?.('{"type":"tool_\\u0075se","tool_id":"t"}')).toBe(true);
    expect(filter?.('{"type":"message","content":"hi"')).toBe(true);
    expect(filter?.(' {"type":"message"}')).toBe(true);
    expect(filter?.('"type"')).toBe(true);
  });

  it('still reads a call whose words are spelled with \\u escapes', () => {
    const { records } = run(
      [
        '{"type":"tool_\\u0075se","tool_id":"t1","tool_name":"ls","parameters":{}}',
        '{"type":"tool_result","tool_id":"t1","status":"\\u0065rror","output":"no"}',
      ],
      'gemini',
    );
    expect(records.map((record) => [record.callId, record.outcome])).toEqual([
      ['t1', 'error'],
    ]);
  });

  it('still counts malformed lines, whether or not they carry a literal', () => {
    const { records, summary } = run(
      [
        '{"type":"message","content":"cut sho',
        '{"type":"tool_use","tool_id":"t1",}',
        '[1]',
        '{"type":"message","content":"fine"}',
        '{"type":"tool_result","tool_id":"t1","status":"success"}',
      ],
      'gemini',
    );
    expect(summary).toMatchObject({ lines: 5, malformed: 3, calls: 1 });
    expect(summary.malformedLines.map((malformed) => malformed.line)).toEqual([
      1, 2, 3,
    ]);
    expect(records[0]).toMatchObject({ callId: 't1', outcome: 'success' });
  });

  it('gives no filter when some rule could match any line', () => {
    const rule = { kind: 'start', id: 'id' };
    expect(table([rule]).lineFilter).toBeUndefined();
    expect(
      table([{ ...rule, when: [{ path: 'n', equals: 1 }] }]).lineFilter,
    ).toBeUndefined();
    expect(
      table([{ ...rule, when: [{ path: 'ev', equals: 'two words' }] }])
        .lineFilter,
    ).toBeUndefined();
    expect(
      table([{ ...rule, when: [{ path: 'ev', in: ['a', 2] }] }]).lineFilter,
    ).toBeUndefined();
    expect(
      table([{ ...rule, when: [{ path: 'ev', in: ['a', 'b'] }] }]).lineFilter,
    ).toBeDefined();
  });

  it('reads a trace the same with the filter resting and working', () => {
    // 100 calls in a row make the filter rest; the text lines after it are then parsed.
    const lines: string[] = [];
    for (let call = 0; call < 100; call++) {
      lines.push(
        `{"type":"tool_use","tool_id":"c${String(call)}","tool_name":"ls","parameters":{}}`,
        `{"type":"tool_result","tool_id":"c${String(call)}","status":"${call % 3 === 0 ? 'error' : 'success'}"}`,
      );
    }
    for (let text = 0; text < 600; text++) {
      lines.push(`{"type":"message","content":"${String(text)}"}`);
    }
    lines.push(
      '{"type":"tool_use","tool_id":"last","tool_name":"ls","parameters":{}}',
    );
    const { records, summary } = run(lines, 'gemini');
    expect(summary).toMatchObject({
      lines: 801,
      calls: 101,
      error: 34,
      success: 66,
      unknown: 1,
      malformed: 0,
    });
    expect(records.at(-1)).toMatchObject({
      callId: 'last',
      outcome: 'unknown',
    });
  });
});

describe('skipUnmatchedLines', () => {
  const fixture = readFileSync(
    new URL('./__fixtures__/codex/exec-json.jsonl', import.meta.url),
    'utf8',
  )
    .split('\n')
    .filter((line) => line !== '');
  // Well bracketed, none of the codex table's words, and not JSON.
  const lines = [...fixture, '{"note": oops}'];

  function run(skipUnmatchedLines: boolean) {
    const normaliser = new TraceNormaliser({
      harness: 'codex',
      skipUnmatchedLines,
    });
    const records = lines.flatMap((line) => [...normaliser.pushLine(line)]);
    records.push(...normaliser.end());
    return { records, summary: normaliser.summary };
  }

  it('is off by default, so every malformed line is counted', () => {
    expect(run(false).summary.malformed).toBe(1);
  });

  it('when on, skips such a line uncounted and gives the same records', () => {
    const fast = run(true);
    expect(fast.summary.malformed).toBe(0);
    expect(fast.records).toEqual(run(false).records);
  });
});
