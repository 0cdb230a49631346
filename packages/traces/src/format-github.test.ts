import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { candorTrace } from './cli-process.case.ts';

// The Actions runner reads a workflow command from every line a step prints, not only from the
// `::error` lines candor-trace means as commands (ActionCommandManager.TryProcessCommand in
// https://github.com/actions/runner/blob/main/src/Runner.Worker/ActionCommandManager.cs).

const scratch = mkdtempSync(join(tmpdir(), 'candor-github-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

// The commands the runner registers (stop-commands and its command extensions).
const registered = new Set([
  'stop-commands',
  'add-mask',
  'set-output',
  'save-state',
  'set-env',
  'add-path',
  'error',
  'warning',
  'notice',
  'debug',
  'group',
  'endgroup',
  'echo',
  'add-matcher',
  'remove-matcher',
]);
// .NET's String.TrimStart(): Char.IsWhiteSpace.
const dotnetSpace =
  /^[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+/u;
// The runner matches its markers culture-aware, which may skip controls and format characters:
// this reader drops them first, so it finds at least every marker the runner could.
const skippable = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * The command the runner would read from one line, or null: `::name …::data` once leading white
 * space is trimmed (ActionCommand.TryParseV2), else the legacy `##[name …]data` anywhere in the
 * line (ActionCommand.TryParse), each only for a registered command name.
 */
function runnerCommand(line: string): string | null {
  const known = (info: string) => {
    const name = (info.split(' ')[0] ?? '').toLowerCase();
    return registered.has(name) ? name : null;
  };
  const text = line.replace(dotnetSpace, '').replace(skippable, '');
  if (text.startsWith('::')) {
    const end = text.indexOf('::', 2);
    const name = end === -1 ? null : known(text.slice(2, end));
    if (name !== null) return name;
  }
  const prefix = text.indexOf('##[');
  const bracket = prefix === -1 ? -1 : text.indexOf(']', prefix);
  return bracket === -1 ? null : known(text.slice(prefix + 3, bracket));
}

function cursorCall(
  id: string,
  tool: string,
  args: unknown,
  result: unknown,
): string[] {
  return [
    JSON.stringify({
      type: 'tool_call',
      subtype: 'started',
      call_id: id,
      tool_call: { [tool]: { args } },
    }),
    JSON.stringify({
      type: 'tool_call',
      subtype: 'completed',
      call_id: id,
      tool_call: { [tool]: { result } },
    }),
  ];
}

describe('--format github on a hostile trace', () => {
  it('gives the runner no command but the ::error of the failed call, whose title has no control character', async () => {
    const esc = '\u001b';
    const trace = join(scratch, 'hostile.jsonl');
    writeFileSync(
      trace,
      [
        // Plain lines: a successful call's arguments, a denial's reason.
        ...cursorCall(
          'c1',
          'shell',
          { command: 'echo ##[add-mask]secret #\u00AD#[stop-commands]t' },
          { success: {} },
        ),
        ...cursorCall(
          'c2',
          'shell',
          {},
          { rejected: { reason: '##[set-output name=ok;]yes' } },
        ),
        // Tool names that open a row of the summary table.
        ...cursorCall('c3', '\u00A0::stop-commands::t1', {}, { success: {} }),
        ...cursorCall('c4', '\u200B::add-mask::x', {}, { success: {} }),
        // A failed call: its tool and id go into the annotation's title.
        ...cursorCall(
          `c5${esc}[31m`,
          `sh${esc}]0;title\u0007`,
          {},
          { failure: {} },
        ),
        // A malformed line, quoted in the summary.
        '##[add-mask]x',
      ].join('\n'),
    );
    const run = await candorTrace(['--format', 'github', '--summary', trace]);
    expect(run.code).toBe(0);
    const lines = `${run.stdout}${run.stderr}`.split('\n');
    const commands = lines.map(runnerCommand).filter((name) => name !== null);
    expect(commands).toEqual(['error']);
    const error = lines.find((line) => line.startsWith('::error '));
    // eslint-disable-next-line no-control-regex -- the control characters are the point
    expect(error).not.toMatch(/[\u0000-\u001F\u007F-\u009F]/u);
    expect(error).toContain('title=sh\\u001b]0;title\\u0007 failed');
    // The text is still there to read, escaped.
    expect(run.stdout).toContain('echo ##\\u005badd-mask]secret');
    expect(run.stdout).toMatch(/^\u00A0\\u003a:stop-commands::t1 +1 /mu);
  });

  it('gives the runner no command in a --follow correction line', async () => {
    const id = 'toolu_##[add-mask]x';
    const trace = [
      JSON.stringify({
        type: 'assistant',
        message: {
          content: [
            { type: 'tool_use', id, name: 'Write', input: { file_path: 'a' } },
          ],
        },
        session_id: 's',
      }),
      JSON.stringify({
        type: 'user',
        message: {
          content: [{ type: 'tool_result', tool_use_id: id, is_error: true }],
        },
        session_id: 's',
      }),
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        session_id: 's',
        permission_denials: [
          { tool_name: 'Write', tool_use_id: id, tool_input: {} },
        ],
      }),
    ].join('\n');
    const run = await candorTrace(['--format', 'github', '--follow', '-'], {
      input: trace,
    });
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toContain(
      '↻ correction: toolu_##\\u005badd-mask]x was ✗ error, now',
    );
    const commands = lines.map(runnerCommand).filter((name) => name !== null);
    // The provisional ✗ error line is the one command.
    expect(commands).toEqual(['error']);
  });

  // Inside an Actions step every line is read for commands, whatever the format: text and JSON
  // escape the markers there too (JSON's \u005b parses back to the exact text).
  it.each(['text', 'json'])(
    'gives the runner no command in --format %s inside an Actions step, and keeps the text',
    async (format) => {
      const trace = [
        ...cursorCall(
          'c1',
          'shell',
          { command: 'echo ##[add-mask]secret' },
          { rejected: { reason: '##[set-output name=ok;]yes' } },
        ),
        '##[add-mask]x',
      ].join('\n');
      const inStep = await candorTrace(['--format', format, '--summary', '-'], {
        input: trace,
        env: { GITHUB_ACTIONS: 'true' },
      });
      expect(inStep.code).toBe(0);
      const lines = `${inStep.stdout}${inStep.stderr}`.split('\n');
      expect(lines.map(runnerCommand).filter((name) => name !== null)).toEqual(
        [],
      );
      if (format === 'json') {
        const record = JSON.parse(inStep.stdout.split('\n')[0] ?? '') as {
          denialReason: string;
        };
        expect(record.denialReason).toBe('##[set-output name=ok;]yes');
      }
      // Outside a step the text is printed as it is.
      const outside = await candorTrace(['--format', format, '-'], {
        input: trace,
      });
      expect(outside.stdout).toContain('##[set-output name=ok;]yes');
    },
  );
});
