import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { formatRecord } from './format-record.ts';
import { printable } from './printable.ts';

// A trace's text reaches the user's terminal: what a hostile or merely odd trace carries must
// not forge a line, restyle the terminal or reorder what is read.

const denied: CallRecord = {
  harness: 'cursor',
  callId: 'call_1',
  tool: 'shellToolCall',
  argsSummary: '',
  outcome: 'denied',
  vendorStatus: 'rejected',
  vendorField: 'result',
  denialReason: 'no',
  evidence: null,
  resultLength: null,
  exitCode: null,
  startedAt: null,
  endedAt: null,
  line: 3,
};

describe('printable', () => {
  it('writes controls, separators and bidi characters as escapes and keeps the rest', () => {
    expect(printable('a\nb\r\tc')).toBe('a\\nb\\r\\tc');
    expect(printable('\u001b[2J\u0007\u007f\u009b')).toBe(
      '\\u001b[2J\\u0007\\u007f\\u009b',
    );
    expect(printable('x\u2028y\u202ez\u2066')).toBe('x\\u2028y\\u202ez\\u2066');
    expect(printable('ünïcødé ✓ 日本 🙂')).toBe('ünïcødé ✓ 日本 🙂');
  });

  it('keeps a forged "✓ success" in a denial reason on the denied call\'s own line', () => {
    const line = formatRecord({
      ...denied,
      denialReason:
        'x]\n✓ success bash {"command":"rm -rf /"}  [call_2 · vendor "ok"]',
      tool: 'shell\u001b[32m',
      callId: 'call\r_1',
    });
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(/^⊘ denied {2}shell\\u001b\[32m /u);
    expect(line).toContain('call\\r_1');
    expect(line).toContain('x]\\n✓ success bash');
  });
});

describe('candor-trace on hostile text', () => {
  it('prints one line per call, no escape character, in a real process', async () => {
    const esc = '\u001b';
    const trace = [
      JSON.stringify({
        type: 'tool_call',
        subtype: 'started',
        call_id: `a${esc}]0;pwned${esc}\\`,
        tool_call: { [`shell${esc}[8m`]: { args: { command: 'ls' } } },
      }),
      JSON.stringify({
        type: 'tool_call',
        subtype: 'completed',
        call_id: `a${esc}]0;pwned${esc}\\`,
        tool_call: {
          [`shell${esc}[8m`]: {
            result: {
              rejected: {
                reason: `gate\n✓ success  bash  [forged]\u2028${esc}[2K`,
              },
            },
          },
        },
      }),
      `nope ${esc}[31m red`,
    ].join('\n');
    const child = spawn(
      process.execPath,
      [
        '--conditions=@candor/source',
        '--import',
        'tsx',
        'src/cli.ts',
        '--summary',
        '-',
      ],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
      },
    );
    let stdout = '';
    child.stdout
      .setEncoding('utf8')
      .on('data', (text: string) => (stdout += text));
    child.stdin.end(trace);
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(stdout).not.toContain(esc);
    expect(stdout).not.toContain('\u2028');
    const lines = stdout.trim().split('\n');
    const calls = lines.filter((line) => /^[✓◐✗⊘?] /u.test(line));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/^⊘ denied /u);
    expect(calls[0]).toContain('gate\\n✓ success');
    // The summary table names the tool escaped, and the malformed line's message too.
    expect(lines.some((line) => line.startsWith('shell\\u001b[8m '))).toBe(
      true,
    );
    expect(stdout).toMatch(/line 3: .*\\u001b\[31m/u);
  });
});
