import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { loadTraceTable } from './load-trace-table.ts';
import { builtinTraceTables } from './builtin-trace-tables.ts';
import { isObservedOutcome } from '@candor/tools';
import { readTrace } from './read-trace.ts';
import type { TraceNormaliserOptions } from './trace-normaliser-options.ts';
import type { TraceSummary } from './trace-summary.ts';

const fixtures = new URL('__fixtures__/', import.meta.url);

async function read(
  fixture: string,
  options: TraceNormaliserOptions = {},
): Promise<{
  records: Map<string, CallRecord>;
  list: CallRecord[];
  summary: TraceSummary;
}> {
  const trace = readTrace(
    createReadStream(new URL(fixture, fixtures)),
    options,
  );
  const list: CallRecord[] = [];
  for await (const record of trace) list.push(record);
  return {
    list,
    records: new Map(list.map((record) => [record.callId, record])),
    summary: trace.summary,
  };
}

function get(records: Map<string, CallRecord>, callId: string): CallRecord {
  const record = records.get(callId);
  if (record === undefined) throw new Error(`no record for ${callId}`);
  return record;
}

// gemini's own word `success` is also an outcome word, so it cannot be told apart here; the
// gemini tests check that it is translated, not copied (`skipped` stays unknown).
const vendorWords = [
  'completed',
  'failed',
  'declined',
  'in_progress',
  'true',
  'false',
  'pending',
  'running',
];

function expectNoVendorWordInOutcome(list: readonly CallRecord[]): void {
  for (const record of list) {
    expect(isObservedOutcome(record.outcome)).toBe(true);
    expect(vendorWords).not.toContain(record.outcome);
  }
}

describe('claude-code stream-json', () => {
  it('surfaces failures and does not cry wolf over successes', async () => {
    const { records, summary } = await read('claude-code/stream-json.jsonl');
    expect(summary.harness).toBe('claude-code');
    expect(get(records, 'toolu_01A')).toMatchObject({
      outcome: 'success',
      vendorStatus: 'false',
      tool: 'Bash',
    });
    expect(get(records, 'toolu_01B')).toMatchObject({
      outcome: 'error',
      vendorStatus: 'true',
    });
    expect(get(records, 'toolu_01L')).toMatchObject({
      outcome: 'error',
      tool: 'Grep',
    });
    expect(get(records, 'toolu_01K')).toMatchObject({
      outcome: 'success',
      tool: 'Glob',
    });
  });

  it('reads a tool_result without is_error as success, not unknown (the trap)', async () => {
    const { records } = await read('claude-code/stream-json.jsonl');
    expect(get(records, 'toolu_01E')).toMatchObject({
      outcome: 'success',
      vendorStatus: null,
      resultLength: '# Readme\n'.length,
    });
  });

  it('marks denials from tool_result_meta and from result.permission_denials', async () => {
    const { records, summary } = await read('claude-code/stream-json.jsonl');
    expect(get(records, 'toolu_01C')).toMatchObject({
      outcome: 'denied',
      denialReason: 'user-rejected',
    });
    // Older CLIs name the denial only on the run-end result line, after the tool_result.
    expect(get(records, 'toolu_01H')).toMatchObject({
      outcome: 'denied',
      denialReason: 'permission_denials',
    });
    expect(get(records, 'toolu_01D')).toMatchObject({
      outcome: 'error',
    });
    expect(summary.denied).toBe(2);
  });

  it('leaves unknown words, orphaned and deferred calls unknown', async () => {
    const { records, summary } = await read('claude-code/stream-json.jsonl');
    expect(get(records, 'toolu_01F')).toMatchObject({
      outcome: 'unknown',
      vendorStatus: 'partial',
    });
    expect(get(records, 'toolu_01G')).toMatchObject({
      outcome: 'unknown',
      vendorStatus: null,
      resultLength: null,
    });
    expect(get(records, 'toolu_01J')).toMatchObject({
      outcome: 'unknown',
      tool: 'AskUserQuestion',
    });
    expect(summary).toMatchObject({
      calls: 11,
      success: 3,
      partial: 0,
      error: 3,
      denied: 2,
      unknown: 3,
      malformed: 0,
    });
  });
});

describe('codex exec --json', () => {
  it('surfaces failed, declined and failed MCP items, and keeps completed ones success', async () => {
    const { records, summary } = await read('codex/exec-json.jsonl');
    expect(summary.harness).toBe('codex');
    expect(get(records, 'item_1')).toMatchObject({
      outcome: 'success',
      vendorStatus: 'completed',
      exitCode: 0,
      argsSummary: 'bash -lc ls',
    });
    expect(get(records, 'item_2')).toMatchObject({
      outcome: 'error',
      exitCode: 2,
    });
    expect(get(records, 'item_3')).toMatchObject({
      outcome: 'denied',
      vendorStatus: 'declined',
      denialReason: 'declined',
    });
    expect(get(records, 'item_4')).toMatchObject({
      outcome: 'success',
      tool: 'search_issues',
    });
    // A failed MCP call can carry a result: having one is not success.
    expect(get(records, 'item_5')).toMatchObject({
      outcome: 'error',
      resultLength: 'Authentication required'.length,
    });
    expect(get(records, 'item_6')).toMatchObject({
      outcome: 'error',
      resultLength: 'tool call timed out'.length,
    });
  });

  it('makes a non-zero exit code an error even when the status says completed', async () => {
    const { records } = await read('codex/exec-json.jsonl');
    expect(get(records, 'item_11')).toMatchObject({
      outcome: 'error',
      vendorStatus: 'completed',
      exitCode: 3,
      evidence: 'exit code 3',
    });
    const pure = await read('codex/exec-json.jsonl', { vendorOnly: true });
    expect(get(pure.records, 'item_11')).toMatchObject({
      outcome: 'success',
      evidence: null,
    });
  });

  it('leaves in-flight items, unknown words and status-less items unknown', async () => {
    const { records, summary } = await read('codex/exec-json.jsonl');
    expect(get(records, 'item_8')).toMatchObject({
      outcome: 'unknown',
      vendorStatus: null,
    });
    // Exit code 0 does not turn a word we have not learned into success.
    expect(get(records, 'item_9')).toMatchObject({
      outcome: 'unknown',
      vendorStatus: 'quarantined',
      exitCode: 0,
    });
    expect(get(records, 'item_10')).toMatchObject({
      outcome: 'unknown',
      tool: 'web_search',
    });
    expect(records.has('item_7')).toBe(false);
    expect(summary).toMatchObject({
      calls: 10,
      success: 2,
      partial: 0,
      error: 4,
      denied: 1,
      unknown: 3,
    });
  });

  it('reads the legacy exec_command_end by its numeric exit code', async () => {
    const { records, summary } = await read('codex/legacy-exec-json.jsonl');
    expect(summary.harness).toBe('codex');
    expect(get(records, 'call_I1o1')).toMatchObject({
      outcome: 'success',
      vendorStatus: '0',
      exitCode: 0,
      tool: 'exec_command',
    });
    expect(get(records, 'call_F2')).toMatchObject({
      outcome: 'error',
      vendorStatus: '2',
      exitCode: 2,
    });
    expect(get(records, 'c2')).toMatchObject({
      outcome: 'error',
      vendorStatus: 'Err',
    });
    expect(get(records, 'c3')).toMatchObject({
      outcome: 'error',
      vendorStatus: 'true',
    });
    expect(get(records, 'p1')).toMatchObject({
      outcome: 'success',
      tool: 'apply_patch',
    });
    expect(get(records, 'call_X')).toMatchObject({
      outcome: 'unknown',
      vendorStatus: null,
    });
  });
});

describe('gemini stream-json', () => {
  it('surfaces errors and keeps successes success', async () => {
    const { records, summary } = await read('gemini/stream-json.jsonl');
    expect(summary.harness).toBe('gemini');
    expect(get(records, 'tool-1')).toMatchObject({
      outcome: 'success',
      vendorStatus: 'success',
      tool: 'testTool',
      startedAt: '2026-08-20T10:00:01.000Z',
      endedAt: '2026-08-20T10:00:02.000Z',
    });
    expect(get(records, 'read_file__read_file_1755684003000_0')).toMatchObject({
      outcome: 'error',
      vendorStatus: 'error',
    });
    expect(get(records, 'a')).toMatchObject({
      outcome: 'error',
      tool: 'activate_skill',
    });
  });

  it('marks a policy_violation as a denial', async () => {
    const { records } = await read('gemini/stream-json.jsonl');
    expect(get(records, 'run_shell_command__abc')).toMatchObject({
      outcome: 'denied',
      denialReason: 'policy_violation',
    });
  });

  it('cannot see a shell exit code the stream hides (documented limit)', async () => {
    const { records } = await read('gemini/stream-json.jsonl');
    // gemini reports `false` (exit 1) as success and prints no structured exit code; Candor
    // does not guess from the output text.
    expect(get(records, 'run_shell_command__false')).toMatchObject({
      outcome: 'success',
      vendorStatus: 'success',
      exitCode: null,
      evidence: null,
    });
  });

  it('leaves unknown words and calls without a tool_result unknown', async () => {
    const { records, summary } = await read('gemini/stream-json.jsonl');
    expect(get(records, 'web_fetch__w1')).toMatchObject({
      outcome: 'unknown',
      vendorStatus: 'skipped',
    });
    expect(get(records, 'run_shell_command__sleep')).toMatchObject({
      outcome: 'unknown',
      endedAt: null,
    });
    expect(summary).toMatchObject({
      calls: 8,
      success: 3,
      partial: 0,
      error: 2,
      denied: 1,
      unknown: 2,
    });
  });
});

describe('opencode run --format json', () => {
  it('makes metadata.exit ≠ 0 an error although the vendor said completed', async () => {
    const { records, summary } = await read('opencode/run-json.jsonl');
    expect(summary.harness).toBe('opencode');
    expect(get(records, 'r9bQWsNLvOrJGIOz')).toMatchObject({
      outcome: 'success',
      vendorStatus: 'completed',
      exitCode: 0,
      startedAt: new Date(1767036061123).toISOString(),
    });
    expect(get(records, 'call_9')).toMatchObject({
      outcome: 'error',
      vendorStatus: 'completed',
      exitCode: 1,
      evidence: 'exit code 1',
    });
    const pure = await read('opencode/run-json.jsonl', { vendorOnly: true });
    expect(get(pure.records, 'call_9')).toMatchObject({
      outcome: 'success',
      vendorStatus: 'completed',
    });
  });

  it('turns tool:"invalid" into an error (the disguised-success trap)', async () => {
    const { records } = await read('opencode/run-json.jsonl');
    expect(get(records, 'call_invalid')).toMatchObject({
      outcome: 'error',
      vendorStatus: 'completed',
      evidence: 'invalid tool call',
    });
  });

  it('marks a rejected permission as a denial and an abort as an error', async () => {
    const { records } = await read('opencode/run-json.jsonl');
    expect(get(records, 'call_fake_reject')).toMatchObject({
      outcome: 'denied',
      denialReason: 'permission rejected',
    });
    expect(get(records, 'call_abort')).toMatchObject({
      outcome: 'error',
    });
  });

  it('leaves unknown words and commands that never exited unknown', async () => {
    const { records, summary } = await read('opencode/run-json.jsonl');
    expect(get(records, 'call_weird')).toMatchObject({
      outcome: 'unknown',
      vendorStatus: 'paused',
    });
    expect(get(records, 'call_timeout')).toMatchObject({
      outcome: 'unknown',
      vendorStatus: 'completed',
      exitCode: null,
      evidence: 'no exit code',
    });
    expect(summary).toMatchObject({
      calls: 9,
      success: 2,
      partial: 0,
      error: 4,
      denied: 1,
      unknown: 2,
    });
  });

  it('maps pending and running parts (event bus and storage only) to unknown', async () => {
    const { records } = await read('opencode/event-bus-parts.jsonl', {
      harness: 'opencode',
    });
    expect(get(records, 'call_running')).toMatchObject({
      outcome: 'unknown',
      vendorStatus: 'running',
    });
    expect(get(records, 'call_pending')).toMatchObject({
      outcome: 'unknown',
      vendorStatus: 'pending',
    });
  });

  it('reports nothing, and certainly no success, when a failed call printed no line', async () => {
    // Before 2026-02 opencode printed only completed calls: the failure is pure silence.
    const input = readFileSync(
      new URL('opencode/run-json.jsonl', fixtures),
      'utf8',
    )
      .split('\n')
      .filter((line) => !line.includes('"type":"tool_use"'))
      .join('\n');
    const trace = readTrace([input], { harness: 'opencode' });
    const list: CallRecord[] = [];
    for await (const record of trace) list.push(record);
    expect(list).toEqual([]);
    expect(trace.summary.success).toBe(0);
  });
});

describe('every harness', () => {
  const files = [
    'claude-code',
    'codex',
    'gemini',
    'opencode',
    'cursor',
    'copilot',
    'goose',
    'invented',
  ].flatMap((dir) =>
    readdirSync(new URL(`${dir}/`, fixtures))
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => `${dir}/${name}`),
  );
  const sources = JSON.parse(
    readFileSync(new URL('sources.json', fixtures), 'utf8'),
  ) as Record<string, Record<string, string>>;
  const acme = loadTraceTable(
    new URL('invented/acme-agent.table.json', fixtures),
  );
  const tables = [...builtinTraceTables(), acme];

  it.each(files)(
    '%s: every call names its source in sources.json',
    async (file) => {
      const { list } = await read(file, { tables });
      const named = sources[file] ?? {};
      expect(list.length).toBeGreaterThan(0);
      for (const record of list) {
        expect(named[record.callId], `${file} ${record.callId}`).toMatch(
          /^(observed in|composed|invented)/u,
        );
      }
    },
  );

  it.each(files)('%s: no raw vendor word leaks into outcome', async (file) => {
    const { list } = await read(file, { tables });
    expectNoVendorWordInOutcome(list);
    const pure = await read(file, { tables, vendorOnly: true });
    expectNoVendorWordInOutcome(pure.list);
  });

  it.each([
    ['claude-code/stream-json.jsonl', 'toolu_01A', 'toolu_01B'],
    ['codex/exec-json.jsonl', 'item_1', 'item_2'],
    ['codex/legacy-exec-json.jsonl', 'call_I1o1', 'call_F2'],
    [
      'gemini/stream-json.jsonl',
      'read_file__read_file_1755684004000_0',
      'read_file__read_file_1755684003000_0',
    ],
    ['opencode/run-json.jsonl', 'call_ls_ok', 'call_ls_fail'],
    ['cursor/stream-json.jsonl', 'call_git_ok', 'call_git_fail'],
    ['copilot/output-format-json.jsonl', 'call_view_ok', 'call_view_fail'],
    ['goose/stream-json.jsonl', 'toolu_ls_ok', 'toolu_ls_fail'],
  ])(
    '%s: a failed and a successful call with identical inputs differ',
    async (file, okId, failedId) => {
      const { records } = await read(file);
      const ok = get(records, okId);
      const failed = get(records, failedId);
      expect(failed.tool).toBe(ok.tool);
      expect(failed.argsSummary).toBe(ok.argsSummary);
      expect(ok.outcome).toBe('success');
      expect(failed.outcome).toBe('error');
      // The raw facts differ too, not only our verdict.
      expect([failed.vendorStatus, failed.exitCode]).not.toEqual([
        ok.vendorStatus,
        ok.exitCode,
      ]);
    },
  );
});

describe('readTrace', () => {
  it('splits lines across chunk boundaries, including inside a multi-byte character', async () => {
    const line =
      '{"type":"tool_use","timestamp":"t","tool_name":"écrire","tool_id":"x","parameters":{}}';
    const bytes = Buffer.from(`${line}\r\n${line.replace('"x"', '"y"')}`);
    const cut = bytes.indexOf(Buffer.from('é')) + 1;
    const trace = readTrace([bytes.subarray(0, cut), bytes.subarray(cut)], {
      harness: 'gemini',
    });
    const list: CallRecord[] = [];
    for await (const record of trace) list.push(record);
    expect(list.map((record) => [record.callId, record.tool])).toEqual([
      ['x', 'écrire'],
      ['y', 'écrire'],
    ]);
    expect(trace.summary.malformed).toBe(0);
  });

  it('rejects when the input itself fails', async () => {
    const input = new PassThrough();
    const trace = readTrace(input);
    const iterator = trace[Symbol.asyncIterator]();
    const next = iterator.next();
    input.destroy(new Error('disk gone'));
    await expect(next).rejects.toThrow('disk gone');
  });
});
