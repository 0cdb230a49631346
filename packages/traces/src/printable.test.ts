import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { candorTrace } from './cli-process.case.ts';
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

  it("escapes every character of Unicode's Bidi_Control property, the Arabic letter mark too", () => {
    // PropList.txt: 061C, 200E..200F, 202A..202E, 2066..2069.
    const bidi = [0x61c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069];
    for (const code of bidi)
      expect(printable(`a${String.fromCodePoint(code)}b`)).toBe(
        `a\\u${code.toString(16).padStart(4, '0')}b`,
      );
    // Joiners are kept: emoji sequences and Persian words need them.
    expect(printable('👩\u200D💻 می\u200Cخواهم')).toBe(
      '👩\u200D💻 می\u200Cخواهم',
    );
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
    const { code, stdout } = await candorTrace(['--summary', '-'], {
      input: trace,
    });
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

describe('candor-trace on hostile names and table files', () => {
  const esc = '\u001b';
  const scratch = mkdtempSync(join(tmpdir(), 'candor-printable-'));
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('escapes a field a table file names when it says what is wrong', async () => {
    const table = join(scratch, 'acme.json');
    writeFileSync(
      table,
      JSON.stringify({
        harness: 'acme',
        detect: [[{ path: ['type'], equals: 'x' }]],
        rules: [{ kind: 'outcome', [`k${esc}[2J`]: 1, id: { path: ['a'] } }],
      }),
    );
    const run = await candorTrace(['--tables', table, '-']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Unrecognized key: "k\\u001b[2J"');
    expect(run.stderr).not.toContain(esc);
  });

  it('escapes a trace file name in the summaries, the report notice and an error', async () => {
    const trace = join(scratch, `run${esc}]0;x\u0007\n✓ success.jsonl`);
    copyFileSync(
      fileURLToPath(
        new URL('__fixtures__/gemini/stream-json.jsonl', import.meta.url),
      ),
      trace,
    );
    const xml = join(scratch, `calls${esc}[2J.xml`);
    const run = await candorTrace(['--junit', xml, trace, trace]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(esc);
    expect(run.stdout).toContain(
      'run\\u001b]0;x\\u0007\\n✓ success.jsonl: gemini:',
    );
    expect(run.stdout).toContain('calls\\u001b[2J.xml');
    const missing = await candorTrace([join(scratch, `gone${esc}[2J.jsonl`)]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('gone\\u001b[2J.jsonl');
    expect(missing.stderr).not.toContain(esc);
  });
});
