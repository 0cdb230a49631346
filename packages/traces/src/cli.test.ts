import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { candorTrace, runSource } from './cli-process.case.ts';

const fixture = (name: string) =>
  fileURLToPath(new URL(`__fixtures__/${name}`, import.meta.url));

const cli = (args: readonly string[], input?: string) =>
  candorTrace(args, input === undefined ? {} : { input });

const scratch = mkdtempSync(join(tmpdir(), 'candor-trace-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('candor-trace', () => {
  it('prints one line per call with its mark, and a summary; exit 0 despite failures', async () => {
    const run = await cli([fixture('opencode/run-json.jsonl')]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(10);
    expect(lines.find((line) => line.includes('r9bQWsNLvOrJGIOz'))).toMatch(
      /^✓ success /u,
    );
    expect(lines.find((line) => line.includes('call_9'))).toMatch(
      /^✗ error .*vendor "completed" · exit 1 · evidence: exit code 1/u,
    );
    expect(lines.find((line) => line.includes('call_fake_reject'))).toMatch(
      /^⊘ denied /u,
    );
    expect(lines.find((line) => line.includes('call_weird'))).toMatch(
      /^\? unknown /u,
    );
    expect(lines.at(-1)).toBe(
      'opencode: 9 calls · 2 ✓ success · 4 ✗ error · 1 ⊘ denied · 2 ? unknown',
    );
  });

  it('reads stdin when the file is -', async () => {
    const lines = [
      '{"type":"tool_use","timestamp":"2026-08-20T10:00:01.000Z","tool_name":"read_file","tool_id":"t1","parameters":{"absolute_path":"/w/a"}}',
      '{"type":"tool_result","timestamp":"2026-08-20T10:00:02.000Z","tool_id":"t1","status":"error","output":"File not found.","error":{"type":"file_not_found","message":"File not found: /w/a"}}',
    ];
    const run = await cli(['-', '--json'], `${lines.join('\n')}\n`);
    expect(run.code).toBe(0);
    const records = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toEqual([
      expect.objectContaining({
        harness: 'gemini',
        callId: 't1',
        tool: 'read_file',
        outcome: 'error',
        vendorStatus: 'error',
        resultLength: 'File not found.'.length,
      }),
    ]);
    expect(run.stderr).toContain(
      'gemini: 1 call · 0 ✓ success · 1 ✗ error · 0 ⊘ denied · 0 ? unknown',
    );
  });

  it('exits 1 with --fail-on-error only when a call failed', async () => {
    const failing = await cli([
      fixture('codex/legacy-exec-json.jsonl'),
      '--fail-on-error',
    ]);
    expect(failing.code).toBe(1);
    const clean = await cli(
      ['-', '--fail-on-error'],
      `${[
        '{"type":"tool_use","timestamp":"t","tool_name":"ls","tool_id":"ok1","parameters":{}}',
        '{"type":"tool_result","timestamp":"t","tool_id":"ok1","status":"success","output":""}',
        '{"type":"tool_use","timestamp":"t","tool_name":"ls","tool_id":"open1","parameters":{}}',
      ].join('\n')}\n`,
    );
    // An unknown outcome is not an error: only a reported failure trips --fail-on-error.
    expect(clean.code).toBe(0);
    const deniedOnly = await cli(
      ['-', '--fail-on-error'],
      `${[
        '{"type":"tool_use","timestamp":"t","tool_name":"run_shell_command","tool_id":"d1","parameters":{"command":"rm -rf /"}}',
        '{"type":"tool_result","timestamp":"t","tool_id":"d1","status":"error","output":"Tool execution denied by policy.","error":{"type":"policy_violation","message":"Tool execution denied by policy."}}',
      ].join('\n')}\n`,
    );
    // A denial did not run, so it is not a failure for --fail-on-error.
    expect(deniedOnly.stdout).toContain('⊘ denied');
    expect(deniedOnly.code).toBe(0);
    expect(clean.stdout).toContain(
      'gemini: 2 calls · 1 ✓ success · 0 ✗ error · 0 ⊘ denied · 1 ? unknown',
    );
  });

  it('reports malformed lines by number and keeps going', async () => {
    const run = await cli(
      ['-', '--harness', 'codex'],
      [
        '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":0,"status":"completed"}}',
        '{"type":"item.completed", oops',
        '',
        '[1,2]',
        '{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"ls","aggregated_output":"","exit_code":1,"status":"failed"}}',
      ].join('\n'),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'codex: 2 calls · 1 ✓ success · 1 ✗ error · 0 ⊘ denied · 0 ? unknown',
    );
    expect(run.stdout).toContain('2 malformed lines skipped:');
    expect(run.stdout).toMatch(/line 2: .+/u);
    expect(run.stdout).toContain('line 4: not a JSON object');
  });

  it('learns a fifth harness from --tables, with no code change', async () => {
    const run = await cli([
      fixture('invented/acme-agent.jsonl'),
      '--tables',
      fixture('invented/acme-agent.table.json'),
      '--json',
    ]);
    expect(run.code).toBe(0);
    const records = run.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            callId: string;
            outcome: string;
            denialReason: string | null;
          },
      );
    expect(
      records.map((record) => [
        record.callId,
        record.outcome,
        record.denialReason,
      ]),
    ).toEqual([
      ['c-1', 'success', null],
      ['c-2', 'error', null],
      ['c-3', 'denied', 'production guard'],
      ['c-4', 'unknown', null],
      ['c-5', 'unknown', null],
    ]);
  });

  it('exits 2 with a clear message when the input cannot be read', async () => {
    const run = await cli([join(scratch, 'missing.jsonl')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^candor-trace: cannot read .*missing\.jsonl: ENOENT: no such file/u,
    );
    expect(run.stderr).not.toContain('ENOENT: ENOENT');
    expect(run.stderr).not.toMatch(/\n\s+at /u);
    const directory = await cli([scratch]);
    expect(directory.code).toBe(2);
    expect(directory.stderr).toContain('EISDIR');
  });

  it('exits 2 naming the file and field of a broken table', async () => {
    const table = join(scratch, 'broken.json');
    writeFileSync(
      table,
      JSON.stringify({
        harness: 'broken',
        detect: [[{ path: 'x', equals: 1 }]],
        rules: [
          {
            kind: 'outcome',
            id: 'id',
            status: { from: [{ path: 's' }], map: 'word_map' },
          },
        ],
      }),
    );
    const run = await cli([
      fixture('gemini/stream-json.jsonl'),
      '--tables',
      table,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${table}: rules[0].status.map: names "word_map"`,
    );
    expect(run.stdout).toBe('');
  });

  it('exits 2 on an unknown harness or option, and prints help on request', async () => {
    const harness = await cli([
      fixture('gemini/stream-json.jsonl'),
      '--harness',
      'acme',
    ]);
    expect(harness.code).toBe(2);
    expect(harness.stderr).toContain(
      'unknown harness "acme" (known: auto, cursor, amp, claude-code, codex, gemini, opencode, copilot, goose, kimi)',
    );
    const option = await cli([
      fixture('gemini/stream-json.jsonl'),
      '--verbose',
    ]);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("Unknown option '--verbose'");
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: candor-trace <file | -> [options]');
  });

  it('says so when no table recognises the format, and exits 2', async () => {
    const run = await cli(['-'], '{"hello":"world"}\n');
    expect(run.code).toBe(2);
    expect(run.stdout.trim()).toBe(
      'no harness recognised in 1 line; name one with --harness',
    );
    expect(run.stderr).toMatch(
      /^candor-trace: cannot read stdin: no harness recognised the 1 lines/u,
    );
  });

  it('never passes --fail-on-error on input it cannot read: empty, unrecognised, or the wrong --harness', async () => {
    const claude = readFileSync(
      fixture('claude-code/stream-json.jsonl'),
      'utf8',
    );
    const cases = [
      { args: ['-'], input: '', reason: 'the input is empty' },
      { args: ['-'], input: 'not json\n', reason: 'none of the 1 lines' },
      {
        args: ['-'],
        input: '{"hello":"world"}\n',
        reason: 'no harness recognised',
      },
      {
        args: ['-', '--harness', 'codex'],
        input: claude,
        reason: '--harness codex found no tool call',
      },
    ];
    const runs = await Promise.all(
      cases.map((entry) =>
        cli([...entry.args, '--fail-on-error'], entry.input),
      ),
    );
    runs.forEach((run, index) => {
      expect(run.code, cases[index]?.reason).toBe(2);
      expect(run.stderr).toContain(cases[index]?.reason);
    });
  });

  it("shows claude-code's is_error: false as the fact it read", async () => {
    const run = await cli([fixture('claude-code/stream-json.jsonl')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('[toolu_01A · vendor is_error: false]');
    expect(run.stdout).not.toContain('vendor "false"');
  });
});

describe('pnpm demo:traces', () => {
  it('shows a naive ✓ next to what Candor shows, for each harness', async () => {
    const run = await runSource('src/demo.ts');
    expect(run.code).toBe(0);
    const blocks = run.stdout.split('\n\n');
    for (const harness of ['claude-code', 'codex', 'gemini', 'opencode']) {
      const block = blocks.find((text) => text.startsWith(`${harness}:`));
      expect(block, harness).toContain('naive   ✓ success');
      expect(block, harness).toMatch(/candor {2}(✗ error|\? unknown)/u);
    }
  });
});
