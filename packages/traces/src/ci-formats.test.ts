import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { formatGithub } from './format-github.ts';
import { formatRecord } from './format-record.ts';
import { readTrace } from './read-trace.ts';
import { renderJunitReport } from './render-junit.ts';
import { runCli } from './run-cli.ts';

const fixture = (name: string) =>
  fileURLToPath(new URL(`__fixtures__/${name}`, import.meta.url));
const fixtures = [
  'claude-code/stream-json.jsonl',
  'codex/exec-json.jsonl',
  'codex/legacy-exec-json.jsonl',
  'gemini/stream-json.jsonl',
  'opencode/run-json.jsonl',
];
const schema = fixture('junit/junit.xsd');
const xmllint = spawnSync('xmllint', ['--version']).error
  ? 'no xmllint (apt-get install libxml2-utils)'
  : undefined;

const scratch = mkdtempSync(join(tmpdir(), 'candor-ci-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

async function cli(
  args: readonly string[],
): Promise<{ code: number; stdout: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  stderr.resume();
  const code = await runCli(args, { stdin: new PassThrough(), stdout, stderr });
  return { code, stdout: out };
}

async function recordsOf(name: string): Promise<CallRecord[]> {
  const records: CallRecord[] = [];
  for await (const record of readTrace(
    readFileSync(fixture(name), 'utf8').split(/(?<=\n)/),
  ))
    records.push(record);
  return records;
}

/** libxml2's own schema validation: exit 0 and "validates", or the reasons. */
function validate(file: string): { ok: boolean; output: string } {
  const run = spawnSync('xmllint', ['--noout', '--schema', schema, file], {
    encoding: 'utf8',
  });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

function xpath(file: string, expression: string): string[] {
  const run = spawnSync('xmllint', ['--xpath', expression, file], {
    encoding: 'utf8',
  });
  // xmllint prints one ` name="…"` per attribute node, and exits 10 when nothing matched.
  return [...run.stdout.matchAll(/name="([^"]*)"/g)].map(
    (match) => match[1] ?? '',
  );
}

interface WorkflowCommand {
  readonly command: string;
  readonly properties: Record<string, string>;
  readonly message: string;
}

/**
 * A workflow-command line read the way the Actions runner reads it (ActionCommand.TryParseV2 in
 * https://github.com/actions/runner/blob/main/src/Runner.Worker/ActionCommandManager.cs and
 * ActionCommand.cs): `::name k=v,k=v::message`, the command part ending at the first `::`,
 * properties split on `,` and `=`, then unescaped (%25 %0D %0A, and %3A %2C in properties).
 */
function parseWorkflowCommand(line: string): WorkflowCommand | null {
  if (!line.startsWith('::')) return null;
  const end = line.indexOf('::', 2);
  if (end === -1) return null;
  const info = line.slice(2, end);
  const space = info.indexOf(' ');
  const command = space === -1 ? info : info.slice(0, space);
  const unescapeData = (text: string) =>
    text.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%');
  const unescapeProperty = (text: string) =>
    text
      .replaceAll('%0D', '\r')
      .replaceAll('%0A', '\n')
      .replaceAll('%3A', ':')
      .replaceAll('%2C', ',')
      .replaceAll('%25', '%');
  const properties: Record<string, string> = {};
  if (space !== -1) {
    for (const pair of info.slice(space + 1).split(',')) {
      if (pair === '') continue;
      const equals = pair.indexOf('=');
      if (equals <= 0) return null;
      properties[pair.slice(0, equals)] = unescapeProperty(
        pair.slice(equals + 1),
      );
    }
  }
  return { command, properties, message: unescapeData(line.slice(end + 2)) };
}

const awkward: CallRecord = {
  harness: 'acme',
  callId: 'call,1:2',
  tool: 'run::it',
  argsSummary: '{"cmd":"echo 100%\\nrm -rf, now"}\r\n\u0001<![CDATA[x]]>&',
  outcome: 'error',
  vendorStatus: 'failed "hard"',
  vendorField: null,
  denialReason: null,
  evidence: 'exit code 1\nand more',
  resultLength: 3,
  exitCode: 1,
  startedAt: '2026-08-20T10:00:00.000Z',
  endedAt: '2026-08-20T10:00:01.250Z',
  line: 7,
};

describe('--format github', () => {
  it('annotates exactly the failed calls with ::error and the unknown ones with ::warning, in the runner syntax', async () => {
    for (const name of fixtures) {
      const run = await cli(['--format', 'github', fixture(name)]);
      expect(run.code).toBe(0);
      const records = await recordsOf(name);
      const commands = run.stdout
        .split('\n')
        .map(parseWorkflowCommand)
        .filter((command) => command !== null);
      const expected = records
        .filter(
          (record) =>
            record.outcome === 'error' || record.outcome === 'unknown',
        )
        .map((record) => ({
          command: record.outcome === 'error' ? 'error' : 'warning',
          properties: {
            file: fixture(name),
            line: String(record.line),
            title: `${record.tool} ${record.outcome === 'error' ? 'failed' : 'outcome unknown'} (${record.callId})`,
          },
          message: formatRecord(record),
        }));
      expect(commands).toEqual(expected);
      expect(commands.some((command) => command.command === 'error')).toBe(
        true,
      );
    }
  });

  it('escapes %, CR and LF in the message, and : and , in properties, so every field reads back', () => {
    const line = formatGithub(awkward, 'runs/a,b:c%d.jsonl');
    expect(line).not.toMatch(/[\r\n]/);
    expect(line.slice(2, line.indexOf('::', 2))).not.toContain(':');
    expect(parseWorkflowCommand(line)).toEqual({
      command: 'error',
      properties: {
        file: 'runs/a,b:c%d.jsonl',
        line: '7',
        title: 'run::it failed (call,1:2)',
      },
      message: formatRecord(awkward),
    });
    expect(formatGithub({ ...awkward, outcome: 'denied' }, 'x')).not.toMatch(
      /^::/,
    );
  });

  it('rejects an unknown format naming the option', async () => {
    const stderr = new PassThrough();
    let err = '';
    stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const code = await runCli(
      ['--format', 'gitlab', fixture(fixtures[0] ?? '')],
      {
        stdin: new PassThrough(),
        stdout: new PassThrough(),
        stderr,
      },
    );
    expect(code).toBe(2);
    expect(err).toContain(
      '--format must be one of text, json, github, not "gitlab"',
    );
  });
});

describe('--junit', () => {
  it('writes a report the JUnit schema accepts, failing exactly the failed calls and skipping denials and unknowns', async (context) => {
    if (xmllint) return context.skip(xmllint);
    const out = join(scratch, 'calls.xml');
    const run = await cli(['--junit', out, ...fixtures.map(fixture)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`JUnit report written to ${out}`);
    const result = validate(out);
    expect(result.output).toContain('validates');
    expect(result.ok).toBe(true);

    const records = (await Promise.all(fixtures.map(recordsOf))).flat();
    const names = (words: readonly string[]) =>
      records
        .filter((record) => words.includes(record.outcome))
        .map((record) => `${record.tool} ${record.callId}`)
        .sort();
    expect(xpath(out, '//testcase/@name')).toHaveLength(records.length);
    expect(xpath(out, '//testcase[failure]/@name').sort()).toEqual(
      names(['error']),
    );
    expect(xpath(out, '//testcase[skipped]/@name').sort()).toEqual(
      names(['denied', 'unknown']),
    );
    expect(xpath(out, '//testsuite/@name')).toEqual(fixtures.map(fixture));
  });

  it("lists each trace's calls in the trace's own order, though the reader hands a held call out later", async () => {
    const records = await recordsOf('claude-code/stream-json.jsonl');
    const lines = records.map((record) => record.line);
    // The reader holds an error until the run's last line (a denial listed there may change it).
    expect(lines).not.toEqual([...lines].sort((a, b) => a - b));
    const xml = renderJunitReport([{ name: 'run', records }]);
    const named = [...xml.matchAll(/<testcase name="([^"]*)"/g)].map(
      (match) => match[1],
    );
    const byLine = [...records]
      .sort((a, b) => a.line - b.line)
      .map((record) => `${record.tool} ${record.callId}`);
    expect(named).toEqual(byLine);
  });

  it('stays valid XML with control characters, quotes and markup in a record', (context) => {
    if (xmllint) return context.skip(xmllint);
    const out = join(scratch, 'awkward.xml');
    writeFileSync(
      out,
      renderJunitReport([{ name: 'a&b"<c>', records: [awkward] }]),
    );
    expect(validate(out).ok).toBe(true);
    expect(xpath(out, '//testcase/@name')).toEqual(['run::it call,1:2']);
    expect(readFileSync(out, 'utf8')).toContain('time="1.250"');
  });

  it('is checked by a schema that can fail: a testcase without a name is refused', (context) => {
    if (xmllint) return context.skip(xmllint);
    const out = join(scratch, 'broken.xml');
    writeFileSync(
      out,
      renderJunitReport([{ name: 't', records: [awkward] }]).replace(
        / name="run::it call,1:2"/,
        '',
      ),
    );
    expect(validate(out).ok).toBe(false);
  });
});
