import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { readTrace } from './read-trace.ts';
import type { TraceNormaliserOptions } from './trace-normaliser-options.ts';

// The harnesses added as tables alone (cursor, copilot, goose, kimi): each fixture call by call, and
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
        callId: 'toolu_bdrk_01EKXzaxy6vAqm6a3wL93cNY',
        tool: 'editToolCall',
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
        callId: 'call_DMa90MxEqG6X9ySAW3ayLBK0',
        tool: 'glob',
        outcome: 'success',
        vendorStatus: 'true',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'call_vLZZib9HFpyNDCiP2WssO1IT',
        tool: 'view',
        outcome: 'error',
        vendorStatus: 'failure',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'call_wiENTMLZF8rE6RWUs9RDqOcG',
        tool: 'view',
        outcome: 'error',
        vendorStatus: 'failure',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'toolu_bdrk_01DmLQ167ZWVrzLr4q6QDAyP',
        tool: 'bash',
        outcome: 'success',
        vendorStatus: 'true',
        exitCode: 0,
        denialReason: null,
      },
      {
        callId: 'toolu_bdrk_01Nfaot1qVXJWKSwccaheAZu',
        tool: 'bash',
        outcome: 'error',
        vendorStatus: 'true',
        exitCode: 1,
        denialReason: null,
      },
      {
        callId: 'call_NWGPWYhSlZaWFqlHegnBpvqG',
        tool: 'bash',
        outcome: 'error',
        vendorStatus: 'true',
        exitCode: 1,
        denialReason: null,
      },
      {
        callId: 'call_BUA2z14Lj2uqf9kB3Xp3rgc2',
        tool: 'rg',
        outcome: 'error',
        vendorStatus: 'failure',
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
        callId: 'call_access_denied',
        tool: 'access_secret',
        outcome: 'denied',
        vendorStatus: 'denied',
        exitCode: null,
        denialReason: 'Access denied: insufficient permissions to read secrets',
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

  // Real runs report a shell command that exited non-zero as a successful tool call; only the
  // shell_exit item in result.contents says otherwise.
  it('makes a real success: true with a non-zero shell exit an error, unless --vendor-only', async () => {
    const { list } = await read('copilot/output-format-json.jsonl');
    const merge = list.find(
      (record) => record.callId === 'toolu_bdrk_01Nfaot1qVXJWKSwccaheAZu',
    );
    expect(merge).toMatchObject({ outcome: 'error', exitCode: 1 });
    const { list: vendorOnly } = await read(
      'copilot/output-format-json.jsonl',
      {
        vendorOnly: true,
      },
    );
    expect(
      vendorOnly.find(
        (record) => record.callId === 'toolu_bdrk_01Nfaot1qVXJWKSwccaheAZu',
      )?.outcome,
    ).toBe('success');
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

describe('kimi --print --output-format stream-json', () => {
  const rejected =
    '<system>ERROR: The tool call is rejected by the user. Try a different approach to complete your task, or explain the limitation in your summary if no alternative is available. Do not retry the same tool call, and do not attempt to bypass this restriction through indirect means.</system>';

  it('reads every call of the fixture right, call by call', async () => {
    const { list, harness } = await read('kimi/stream-json.jsonl');
    expect(harness).toBe('kimi');
    expect(facts(list)).toEqual([
      {
        callId: 'tc_1',
        tool: 'Shell',
        outcome: 'unknown',
        vendorStatus: 'text',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'tool_cli_ok',
        tool: 'Shell',
        outcome: 'success',
        vendorStatus: 'parts',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'tool_cli_write',
        tool: 'WriteFile',
        outcome: 'success',
        vendorStatus: 'system',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'tool_cli_fail',
        tool: 'Shell',
        outcome: 'error',
        vendorStatus: 'ERROR',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'tool_cli_read',
        tool: 'ReadFile',
        outcome: 'error',
        vendorStatus: 'ERROR',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'tool_cli_rm',
        tool: 'Shell',
        outcome: 'denied',
        vendorStatus: 'ERROR',
        exitCode: null,
        denialReason: rejected,
      },
      {
        callId: 'tool_code_deny',
        tool: 'Bash',
        outcome: 'denied',
        vendorStatus: 'text',
        exitCode: null,
        denialReason:
          'Tool "Bash" was denied by permission rule. Reason: no writes in this checkout',
      },
      {
        callId: 'tool_code_fail',
        tool: 'Bash',
        outcome: 'error',
        vendorStatus: 'exit',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'tool_code_ok',
        tool: 'Bash',
        outcome: 'unknown',
        vendorStatus: 'text',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'tool_code_sleep',
        tool: 'Bash',
        outcome: 'unknown',
        vendorStatus: null,
        exitCode: null,
        denialReason: null,
      },
    ]);
  });

  // A bare text line between the JSON ones (composed from kimi-cli's MaxStepsReached message):
  // it is counted as malformed and the calls around it are still read.
  it('reads the real kimi-cli 1.43 capture right', async () => {
    const { list, harness } = await read('kimi/real-1-43.jsonl');
    expect(harness).toBe('kimi');
    expect(facts(list)).toEqual([
      {
        callId: 'tool_fDfRhO8CUybWOQhepYPLDo6J',
        tool: 'Shell',
        outcome: 'success',
        vendorStatus: 'parts',
        exitCode: null,
        denialReason: null,
      },
    ]);
    expect(list[0]?.argsSummary).toBe('{"command": "ls /"}');
  });

  it('counts a bare step-limit notice as one malformed line and reads on', async () => {
    const trace = readTrace(
      createReadStream(new URL('kimi/stream-json.jsonl', fixtures)),
    );
    const list: CallRecord[] = [];
    for await (const record of trace) list.push(record);
    expect(trace.summary).toMatchObject({ malformed: 1, calls: 10 });
    expect(trace.summary.malformedLines).toEqual([
      expect.objectContaining({ line: 9 }),
    ]);
  });

  // kimi-code writes only the tool's text: the error flag it holds never reaches the stream, so a
  // plain-string result stays unknown, and --vendor-only changes nothing (no exit codes here).
  it('keeps a plain-string result unknown, and a parallel pair apart by id', async () => {
    const { list } = await read('kimi/stream-json.jsonl', { vendorOnly: true });
    const byId = new Map(list.map((record) => [record.callId, record]));
    expect(byId.get('tool_code_ok')?.outcome).toBe('unknown');
    expect(byId.get('tool_code_fail')?.outcome).toBe('error');
    expect(byId.get('tool_cli_read')?.argsSummary).toBe(
      '{"path": "./missing.txt"}',
    );
    expect(byId.get('tool_cli_rm')?.argsSummary).toBe(
      '{"command": "rm -rf build"}',
    );
  });
});

describe('auto-detection across the shipped tables', () => {
  it.each([
    ['cursor/stream-json.jsonl', 'cursor'],
    ['cursor/real-runs.jsonl', 'cursor'],
    ['copilot/output-format-json.jsonl', 'copilot'],
    ['goose/stream-json.jsonl', 'goose'],
    ['kimi/stream-json.jsonl', 'kimi'],
    ['kimi/real-1-43.jsonl', 'kimi'],
    ['amp/stream-json.jsonl', 'amp'],
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
    ['cursor/real-runs.jsonl', 'cursor', '"type":"tool_call"'],
    ['copilot/output-format-json.jsonl', 'copilot', '"tool.execution_'],
    ['goose/stream-json.jsonl', 'goose', '"role":"user"'],
    ['kimi/stream-json.jsonl', 'kimi', '"role":"tool"'],
    ['kimi/real-1-43.jsonl', 'kimi', '"tool_calls"'],
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

  // The real lines alone, without the composed calls around them: one captured Cursor Agent run
  // (its session id marks every line) and the real Copilot CLI lines (only they carry `rte`).
  it.each([
    [
      'cursor/stream-json.jsonl',
      'cursor',
      '644c7cde-a660-4224-a26b-0b0a7e279293',
      1,
    ],
    ['copilot/output-format-json.jsonl', 'copilot', '"rte":true', 8],
  ])(
    '%s: its real lines alone are still %s',
    async (file, harness, marker, calls) => {
      const lines = readFileSync(new URL(file, fixtures), 'utf8')
        .split('\n')
        .filter((line) => line.includes(marker));
      const trace = readTrace([lines.join('\n')]);
      const list: CallRecord[] = [];
      for await (const record of trace) list.push(record);
      expect(trace.summary.harness).toBe(harness);
      expect(list).toHaveLength(calls);
    },
  );

  // kimi-cli's documented example alone (lines 2-4 of the fixture): one call, still kimi.
  it('kimi/stream-json.jsonl: its documented example alone is still kimi', async () => {
    const lines = readFileSync(
      new URL('kimi/stream-json.jsonl', fixtures),
      'utf8',
    )
      .split('\n')
      .slice(1, 4);
    const trace = readTrace([lines.join('\n')]);
    const list: CallRecord[] = [];
    for await (const record of trace) list.push(record);
    expect(trace.summary.harness).toBe('kimi');
    expect(list).toHaveLength(1);
  });

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
