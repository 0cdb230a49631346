import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { readTrace } from './read-trace.ts';
import type { TraceNormaliserOptions } from './trace-normaliser-options.ts';

// The harnesses added as tables alone (cursor, copilot, goose): each fixture call by call, and
// auto-detection among all the shipped tables. Sources of every call: __fixtures__/sources.json.

const fixtures = new URL('__fixtures__/', import.meta.url);

async function read(
  fixture: string,
  options: TraceNormaliserOptions = {},
): Promise<{ list: CallRecord[]; harness: string | null }> {
  const trace = readTrace(
    createReadStream(new URL(fixture, fixtures)),
    options,
  );
  const list: CallRecord[] = [];
  for await (const record of trace) list.push(record);
  return { list, harness: trace.summary.harness };
}

type Expected = Pick<
  CallRecord,
  'callId' | 'tool' | 'outcome' | 'vendorStatus' | 'exitCode' | 'denialReason'
>;

function facts(list: readonly CallRecord[]): Expected[] {
  return list.map(
    ({ callId, tool, outcome, vendorStatus, exitCode, denialReason }) => ({
      callId,
      tool,
      outcome,
      vendorStatus,
      exitCode,
      denialReason,
    }),
  );
}

describe('cursor-agent --output-format stream-json', () => {
  it('reads every call of the fixture right, call by call', async () => {
    const { list, harness } = await read('cursor/stream-json.jsonl');
    expect(harness).toBe('cursor');
    expect(facts(list)).toEqual([
      {
        callId: 'toolu_vrtx_01NnjaR886UcE8whekg2MGJd',
        tool: 'readToolCall',
        outcome: 'success',
        vendorStatus: 'success',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'toolu_vrtx_01Q3VHVnWFSKygaRPT7WDxrv',
        tool: 'writeToolCall',
        outcome: 'success',
        vendorStatus: 'success',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'call_git_ok',
        tool: 'shellToolCall',
        outcome: 'success',
        vendorStatus: 'success',
        exitCode: 0,
        denialReason: null,
      },
      {
        callId: 'call_git_fail',
        tool: 'shellToolCall',
        outcome: 'error',
        vendorStatus: 'failure',
        exitCode: 128,
        denialReason: null,
      },
      {
        callId: 'call_exit_in_success',
        tool: 'shellToolCall',
        outcome: 'error',
        vendorStatus: 'success',
        exitCode: 1,
        denialReason: null,
      },
      {
        callId: 'call_read_missing',
        tool: 'readToolCall',
        outcome: 'error',
        vendorStatus: 'error',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'call_rm',
        tool: 'shellToolCall',
        outcome: 'denied',
        vendorStatus: 'rejected',
        exitCode: null,
        denialReason:
          'Command requires approval, which is unavailable in headless mode',
      },
      {
        callId: 'call_grep',
        tool: 'grepToolCall',
        outcome: 'unknown',
        vendorStatus: 'timedOut',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'call_sleep',
        tool: 'shellToolCall',
        outcome: 'unknown',
        vendorStatus: null,
        exitCode: null,
        denialReason: null,
      },
    ]);
  });

  it('keeps the arguments, the result field and the per-call times', async () => {
    const { list } = await read('cursor/stream-json.jsonl');
    const ok = list.find((record) => record.callId === 'call_git_ok');
    expect(ok).toMatchObject({
      vendorField: 'result',
      startedAt: '2026-02-11T15:24:09.274Z',
      endedAt: '2026-02-11T15:24:10.211Z',
      resultLength: 'On branch main\nnothing to commit, working tree clean\n'
        .length,
    });
    expect(ok?.argsSummary).toContain('"command":"git status"');
    // The error case's completed line carries no args; the started line's are kept.
    const missing = list.find(
      (record) => record.callId === 'call_read_missing',
    );
    expect(missing?.argsSummary).toBe(
      '{"path":"/Users/user/project/missing.md"}',
    );
    expect(missing?.resultLength).toBe('File not found'.length);
  });

  it('shows only the vendor word with --vendor-only, so a success with exit 1 stays success', async () => {
    const { list } = await read('cursor/stream-json.jsonl', {
      vendorOnly: true,
    });
    expect(
      list.find((record) => record.callId === 'call_exit_in_success')?.outcome,
    ).toBe('success');
  });
});

describe('copilot -p --output-format json', () => {
  it('reads every call of the fixture right, call by call', async () => {
    const { list, harness } = await read('copilot/output-format-json.jsonl');
    expect(harness).toBe('copilot');
    expect(facts(list)).toEqual([
      {
        callId: 'call_x5yicAXwlGQzNEXN6wYuEf6U',
        tool: 'skill',
        outcome: 'success',
        vendorStatus: 'true',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'call_view_ok',
        tool: 'view',
        outcome: 'success',
        vendorStatus: 'true',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'call_view_fail',
        tool: 'view',
        outcome: 'error',
        vendorStatus: 'false',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'call_edit_rejected',
        tool: 'edit',
        outcome: 'denied',
        vendorStatus: 'false',
        exitCode: null,
        denialReason: 'The user rejected this tool call.',
      },
      {
        callId: 'call_node_denied',
        tool: 'bash',
        outcome: 'denied',
        vendorStatus: 'false',
        exitCode: null,
        denialReason:
          'Permission denied and could not request permission from user',
      },
      {
        callId: 'call_sleep',
        tool: 'bash',
        outcome: 'unknown',
        vendorStatus: null,
        exitCode: null,
        denialReason: null,
      },
    ]);
  });

  it('takes each call’s start and end from its two lines', async () => {
    const { list } = await read('copilot/output-format-json.jsonl');
    expect(list[0]).toMatchObject({
      startedAt: '2026-08-05T19:20:15.696Z',
      endedAt: '2026-08-05T19:20:15.732Z',
      vendorField: 'success',
      resultLength: '[REDACTED]'.length,
    });
  });
});

describe('goose run --output-format stream-json', () => {
  it('reads every call of the fixture right, call by call', async () => {
    const { list, harness } = await read('goose/stream-json.jsonl');
    expect(harness).toBe('goose');
    expect(facts(list)).toEqual([
      {
        callId: 'toolu_ls_ok',
        tool: 'developer__shell',
        outcome: 'success',
        vendorStatus: 'false',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'toolu_ls_fail',
        tool: 'developer__shell',
        outcome: 'error',
        vendorStatus: 'true',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'toolu_edit',
        tool: 'developer__text_editor',
        outcome: 'error',
        vendorStatus: 'error',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'toolu_read',
        tool: 'developer__text_editor',
        outcome: 'success',
        vendorStatus: 'success',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'toolu_weird',
        tool: 'fetch__fetch',
        outcome: 'unknown',
        vendorStatus: 'pending',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'toolu_sleep',
        tool: 'developer__shell',
        outcome: 'unknown',
        vendorStatus: null,
        exitCode: null,
        denialReason: null,
      },
    ]);
  });
});

describe('auto-detection across the seven shipped tables', () => {
  it.each([
    ['cursor/stream-json.jsonl', 'cursor'],
    ['copilot/output-format-json.jsonl', 'copilot'],
    ['goose/stream-json.jsonl', 'goose'],
    ['claude-code/stream-json.jsonl', 'claude-code'],
    ['codex/exec-json.jsonl', 'codex'],
    ['codex/legacy-exec-json.jsonl', 'codex'],
    ['gemini/stream-json.jsonl', 'gemini'],
    ['opencode/run-json.jsonl', 'opencode'],
  ])('%s is recognised as %s', async (file, harness) => {
    expect((await read(file)).harness).toBe(harness);
  });

  // Each new format is recognised from any of its call lines, not only from its first line: a
  // trace cut anywhere (a tail, a follow started late) still finds its table.
  it.each([
    ['cursor/stream-json.jsonl', 'cursor', '"type":"tool_call"'],
    ['copilot/output-format-json.jsonl', 'copilot', '"tool.execution_'],
    ['goose/stream-json.jsonl', 'goose', '"role":"user"'],
  ])(
    '%s without its opening lines is still %s',
    async (file, harness, marker) => {
      const lines = readFileSync(new URL(file, fixtures), 'utf8').split('\n');
      const first = lines.findIndex((line) => line.includes(marker));
      const trace = readTrace([lines.slice(first).join('\n')]);
      for await (const _record of trace) {
        // drained for the summary
      }
      expect(trace.summary.harness).toBe(harness);
    },
  );

  it("tells cursor's init line from claude-code's by claude-code's tools list", async () => {
    const cursorInit =
      '{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s","model":"Auto","permissionMode":"default"}';
    const claudeInit =
      '{"type":"system","subtype":"init","apiKeySource":"none","cwd":"/w","session_id":"s","model":"claude-sonnet-4-5","permissionMode":"default","tools":["Bash"]}';
    for (const [line, harness] of [
      [cursorInit, 'cursor'],
      [claudeInit, 'claude-code'],
    ] as const) {
      const trace = readTrace([line]);
      for await (const _record of trace) {
        // drained for the summary
      }
      expect(trace.summary.harness).toBe(harness);
    }
  });
});
