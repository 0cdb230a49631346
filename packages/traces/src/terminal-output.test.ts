import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { runCli } from './run-cli.ts';
import { useColour } from './terminal-colour.ts';
import { ToolTally } from './tool-tally.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string) =>
  fileURLToPath(new URL(`__fixtures__/${name}`, import.meta.url));
// eslint-disable-next-line no-control-regex -- ANSI escapes are what is looked for
const ansi = /\u001b\[\d+m/;
const esc = '\u001b';

/** The real bin in a child process, stdout a pipe, with the given environment additions. */
async function child(
  args: readonly string[],
  env: Record<string, string>,
): Promise<string> {
  const base = { ...process.env };
  delete base['FORCE_COLOR'];
  delete base['NO_COLOR'];
  const run = spawn(
    process.execPath,
    ['--conditions=@candor/source', '--import', 'tsx', 'src/cli.ts', ...args],
    {
      cwd: packageDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...base, ...env },
    },
  );
  let out = '';
  run.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  run.stderr.resume();
  await new Promise((resolve, reject) => {
    run.once('error', reject);
    run.once('close', resolve);
  });
  return out;
}

function record(overrides: Partial<CallRecord>): CallRecord {
  return {
    harness: 'gemini',
    callId: 'c',
    tool: 'bash',
    argsSummary: '',
    outcome: 'success',
    vendorStatus: 'success',
    vendorField: null,
    denialReason: null,
    evidence: null,
    resultLength: 0,
    exitCode: null,
    startedAt: null,
    endedAt: null,
    line: 1,
    ...overrides,
  };
}

describe('colour', () => {
  it('follows Node: a TTY asks hasColors(), a pipe colours only with FORCE_COLOR (not 0 or false)', () => {
    expect(useColour({ isTTY: true, hasColors: () => true }, {})).toBe(true);
    expect(
      useColour({ isTTY: true, hasColors: () => false }, { FORCE_COLOR: '1' }),
    ).toBe(false);
    expect(useColour({}, {})).toBe(false);
    expect(useColour({}, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColour({}, { FORCE_COLOR: '' })).toBe(true);
    expect(useColour({}, { FORCE_COLOR: '0' })).toBe(false);
    expect(useColour({}, { FORCE_COLOR: 'false' })).toBe(false);
  });

  it('colours the mark and word in a real process with FORCE_COLOR, and not on a plain pipe or with FORCE_COLOR=0', async () => {
    const trace = fixture('gemini/stream-json.jsonl');
    const forced = await child([trace], { FORCE_COLOR: '1' });
    expect(forced).toMatch(ansi);
    expect(forced.split('\n')[0]).toMatch(
      new RegExp(`^${esc}\\[32m✓ success${esc}\\[39m testTool`),
    );
    expect(await child([trace], {})).not.toMatch(ansi);
    expect(await child([trace], { FORCE_COLOR: '0' })).not.toMatch(ansi);
    // NO_COLOR alone on a pipe: no colour, and never on JSON.
    expect(await child([trace], { NO_COLOR: '1' })).not.toMatch(ansi);
    expect(await child(['--json', trace], { FORCE_COLOR: '1' })).not.toMatch(
      ansi,
    );
  }, 60_000);

  it('on a terminal colours the lines and ends with the table without being asked', async () => {
    const stdout = Object.assign(new PassThrough(), {
      isTTY: true,
      hasColors: () => true,
    });
    let out = '';
    stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const code = await runCli([fixture('gemini/stream-json.jsonl')], {
      stdin: new PassThrough(),
      stdout,
      stderr: new PassThrough(),
      env: {},
    });
    expect(code).toBe(0);
    expect(out).toMatch(ansi);
    expect(out).toMatch(/\ntool +calls +✓ +◐ +✗ +⊘ +\? +p50 +max\n/);
  });
});

describe('the summary table', () => {
  it('counts each outcome per tool with p50 and max where both ends were recorded', () => {
    const tally = new ToolTally();
    const at = (ms: number) =>
      new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
    tally.add(record({ startedAt: at(0), endedAt: at(100) }));
    tally.add(record({ outcome: 'error', startedAt: at(0), endedAt: at(300) }));
    tally.add(
      record({ outcome: 'denied', startedAt: at(0), endedAt: at(12_000) }),
    );
    tally.add(record({ tool: 'read', outcome: 'unknown' }));
    expect(tally.format(false).split('\n')).toEqual([
      'tool  calls  ✓  ◐  ✗  ⊘  ?     p50     max',
      'bash      3  1  0  1  1  0  300 ms  12.0 s',
      'read      1  0  0  0  0  1       –       –',
    ]);
  });

  it('is printed with --summary off a terminal, and not without it', async () => {
    const run = async (args: readonly string[]) => {
      const stdout = new PassThrough();
      let out = '';
      stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      await runCli(args, {
        stdin: new PassThrough(),
        stdout,
        stderr: new PassThrough(),
        env: {},
      });
      return out;
    };
    const trace = fixture('codex/exec-json.jsonl');
    expect(await run(['--summary', trace])).toMatch(
      /\ncommand_execution +6 +1 +0 +2 +1 +2 +– +–\n/,
    );
    expect(await run([trace])).not.toContain('p50');
  });
});
