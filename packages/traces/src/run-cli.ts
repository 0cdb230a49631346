import { once } from 'node:events';
import { createReadStream, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  builtinHarnesses,
  builtinTraceTables,
} from './builtin-trace-tables.ts';
import { formatGithub, githubPlain } from './format-github.ts';
import { followFile } from './follow-file.ts';
import { formatRecord, recordSymbol } from './format-record.ts';
import { printable } from './printable.ts';
import { formatSummary } from './format-summary.ts';
import { renderHtmlReport } from './html-report.ts';
import { renderJunitReport } from './render-junit.ts';
import type { ReportTrace } from './report-trace.ts';
import { loadTraceTable } from './load-trace-table.ts';
import type { CallRecord } from './call-record.ts';
import type { TraceTable } from './parse-trace-table.ts';
import { readTrace, type TraceReading } from './read-trace.ts';
import type { TraceSummary } from './trace-summary.ts';
import { paintOutcome, useColour } from './terminal-colour.ts';
import { ToolTally } from './tool-tally.ts';
import { TraceTableError } from './trace-table-error.ts';

/** Where the CLI reads and writes; `process` in the bin, anything stream-like in tests. */
export interface CliIo {
  readonly stdin: AsyncIterable<string | Uint8Array>;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /**
   * The environment: colour detection reads `NO_COLOR` and `FORCE_COLOR`, and `GITHUB_ACTIONS`
   * (`true` inside an Actions step) keeps workflow commands out of every format; `process.env`
   * when absent.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Ends `--follow <file>` (the bin aborts it on SIGINT); never aborted when absent. */
  readonly signal?: AbortSignal;
}

/** Exit codes of `candor-trace`. */
export const CliExit = {
  /** The trace was read (failed calls alone do not change this without --fail-on-error). */
  Ok: 0,
  /** `--fail-on-error` was given and at least one call failed. */
  CallsFailed: 1,
  /**
   * The input, a table file or the command line could not be read, including input that was read
   * but says nothing: empty, recognised by no harness, or no call for the named `--harness`.
   */
  Unreadable: 2,
} as const;

/** One of {@link CliExit}. */
export type CliExit = (typeof CliExit)[keyof typeof CliExit];

const usage = `Usage: candor-trace <file | -> [options]
       candor-trace --html <out.html> <file | -> [more files…] [options]
       candor-trace --junit <out.xml> <file | -> [more files…] [options]

Reads an agent CLI trace (JSONL) and prints one line per tool call:
  ✓ success   ◐ partial   ✗ error   ⊘ denied (did not run)
  ? unknown (no outcome, or a word no table knows)

Options:
  --harness <name>   auto (default), ${builtinHarnesses.join(', ')}, or a name from --tables
  --tables <file>    add a harness table file (JSON); may be repeated
  --format <name>    text (default), json, or github (::error / ::warning workflow
                     commands for failed and unknown calls, for GitHub Actions)
  --json             the same as --format json: one JSON record per line (the
                     summary goes to stderr)
  --junit <file>     also write a JUnit XML report (one testcase per call)
  --follow <file|->  read a trace while it is written (a file being appended to, or
                     stdin): each call is printed when its outcome line arrives,
                     with a correction line if a later line changes it; ends on
                     Ctrl-C (then open calls are reported as unknown)
  --summary          end with a table per tool (the default on a terminal):
                     calls, each outcome, p50 and max duration where recorded
  --html <file>      write one self-contained HTML report of every trace given
                     (stdout then gets each trace's summary only)
  --vendor-only      report the vendor's word alone, ignoring exit codes and escalations
  --fail-on-error    exit 1 when any call's outcome is error (denials did not run)
  -h, --help         show this help

Exit codes: 0 read, 1 a call failed (only with --fail-on-error), 2 unreadable input
(also empty input, no harness recognised, or no call found for --harness <name>).
`;

const outputFormats = ['text', 'json', 'github'] as const;
type OutputFormat = (typeof outputFormats)[number];

function isOutputFormat(name: string): name is OutputFormat {
  return (outputFormats as readonly string[]).includes(name);
}

function formatLine(
  record: CallRecord,
  format: OutputFormat,
  {
    source,
    colour,
    commandFree,
  }: { source: string; colour: boolean; commandFree: boolean },
): string {
  switch (format) {
    case 'json': {
      // Inside a JSON string `\u005b` is `[` again once parsed: the record's text stays exact.
      const line = JSON.stringify(record);
      return commandFree ? githubPlain(line) : line;
    }
    case 'github':
      return formatGithub(record, source);
    case 'text': {
      const text = formatRecord(record);
      const line = commandFree ? githubPlain(text) : text;
      // The mark and the padded word (9 characters) take the colour; the facts stay plain.
      return colour
        ? `${paintOutcome(line.slice(0, 9), record.outcome, true)}${line.slice(9)}`
        : line;
    }
  }
}

async function write(
  stream: NodeJS.WritableStream,
  text: string,
): Promise<void> {
  // Respect backpressure so a huge trace piped to a slow reader stays in constant memory.
  if (!stream.write(text)) await once(stream, 'drain');
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      harness: { type: 'string', default: 'auto' },
      tables: { type: 'string', multiple: true, default: [] },
      json: { type: 'boolean', default: false },
      html: { type: 'string' },
      summary: { type: 'boolean', default: false },
      follow: { type: 'string' },
      junit: { type: 'string' },
      format: { type: 'string', default: 'text' },
      'vendor-only': { type: 'boolean', default: false },
      'fail-on-error': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    // Node's own messages already start with the code (`ENOENT: no such file…`): say it once.
    const code =
      'code' in error &&
      typeof error.code === 'string' &&
      !error.message.startsWith(error.code)
        ? `${error.code}: `
        : '';
    return `${code}${error.message}`;
  }
  return String(error);
}

/**
 * Why a trace that was read to the end still says nothing: an empty input, lines no table
 * recognised, or a named harness that found no call in them. Green on such input would let a CI
 * gate pass on garbage.
 */
function unreadableReason(
  summary: TraceSummary,
  harness: string,
): string | undefined {
  if (summary.lines === 0 || summary.lines === summary.malformed) {
    return summary.lines === 0
      ? 'the input is empty'
      : `none of the ${summary.lines} lines is a JSON object`;
  }
  if (summary.harness === null) {
    return `no harness recognised the ${summary.lines} lines (try --harness, or add a table with --tables)`;
  }
  if (harness !== 'auto' && summary.calls === 0) {
    return `--harness ${harness} found no tool call in the ${summary.lines} lines: is this a ${harness} trace?`;
  }
  return undefined;
}

/**
 * Runs `candor-trace` with the given arguments and returns its exit code. Never throws for
 * bad input: every problem becomes one clear line on stderr and exit code 2.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(process.argv.slice(2), process);
 * ```
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
): Promise<CliExit> {
  // The Actions runner also reads stderr for commands (see commandFree below).
  const inActions = (io.env ?? process.env)['GITHUB_ACTIONS'] === 'true';
  const fail = async (message: string): Promise<CliExit> => {
    // A message may quote a file name or a table file's field: escaped line by line like a trace.
    const escaped = message.split('\n').map(printable).join('\n');
    const shown = inActions ? githubPlain(escaped) : escaped;
    await write(io.stderr, `candor-trace: ${shown}\n`);
    return CliExit.Unreadable;
  };

  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv);
  } catch (error: unknown) {
    return fail(`${describe(error)}\n\n${usage}`);
  }
  const { values, positionals } = options;
  if (values.help) {
    await write(io.stdout, usage);
    return CliExit.Ok;
  }
  const follow = values.follow;
  if (follow !== undefined && positionals.length > 0) {
    return fail(
      `--follow takes the trace itself: give no other file\n\n${usage}`,
    );
  }
  const names = follow === undefined ? positionals : [follow];
  const [file, ...extra] = names;
  const reports = values.html !== undefined || values.junit !== undefined;
  if (file === undefined || file === '' || (extra.length > 0 && !reports)) {
    return fail(
      `expected exactly one trace file (or - for stdin; several only with --html or --junit)\n\n${usage}`,
    );
  }
  if (values.html === '') return fail(`--html needs a file name\n\n${usage}`);
  if (values.junit === '') return fail(`--junit needs a file name\n\n${usage}`);
  const format = values.json ? 'json' : values.format;
  if (!isOutputFormat(format)) {
    return fail(
      `--format must be one of ${outputFormats.join(', ')}, not "${format}"\n\n${usage}`,
    );
  }
  const commandFree = format === 'github' || inActions;

  let tables: readonly TraceTable[];
  try {
    const custom = values.tables.map((path) => loadTraceTable(path));
    const names = new Set(custom.map((table) => table.harness));
    // A custom table may replace a shipped one of the same name; custom tables are tried first.
    tables = [
      ...custom,
      ...builtinTraceTables().filter((table) => !names.has(table.harness)),
    ];
  } catch (error: unknown) {
    if (error instanceof TraceTableError)
      return fail(`invalid table\n${error.message}`);
    throw error;
  }

  // --follow prints a held call (claude-code, opencode) on its outcome line, then a correction
  // if the line that releases it changed it (a denial listed at the run's end).
  const provisional = new Map<string, CallRecord>();
  const onProvisional = (record: CallRecord): void => {
    provisional.set(record.callId, record);
    if (values.html === undefined)
      io.stdout.write(
        `${formatLine(record, format, { source: follow ?? '', colour, commandFree })}\n`,
      );
  };
  const open = (name: string): TraceReading =>
    readTrace(
      name === '-'
        ? io.stdin
        : follow === undefined
          ? createReadStream(name)
          : followFile(name, {
              signal: io.signal ?? new AbortController().signal,
            }),
      {
        harness: values.harness,
        tables,
        vendorOnly: values['vendor-only'],
        ...(follow === undefined ? {} : { onProvisional }),
      },
    );

  // The summary and notices go where they do not mix with machine-read records.
  const notes = format === 'json' ? io.stderr : io.stdout;
  // Under --format github, and in any format inside a GitHub Actions step (the runner sets
  // GITHUB_ACTIONS), the runner reads every line for commands, ours or not: the records, the
  // summary, the tool table and a correction carry the trace's text, so none may hold one.
  const plain = (text: string): string =>
    commandFree ? githubPlain(text) : text;
  const colour =
    format === 'text' && useColour(io.stdout, io.env ?? process.env);
  const onTerminal = 'isTTY' in io.stdout && io.stdout.isTTY === true;
  const tally = values.summary || onTerminal ? new ToolTally() : undefined;
  const traces: ReportTrace[] = [];
  let failed = false;
  for (const name of names) {
    const source = name === '-' ? 'stdin' : name;
    let trace: TraceReading;
    try {
      trace = open(name);
    } catch (error: unknown) {
      return fail(describe(error));
    }
    const records: CallRecord[] = [];
    try {
      for await (const record of trace) {
        if (reports) records.push(record);
        tally?.add(record);
        const shown = provisional.get(record.callId);
        provisional.delete(record.callId);
        // The HTML report is the view; the terminal then gets the summaries alone.
        if (values.html !== undefined || shown?.outcome === record.outcome)
          continue;
        const correction =
          shown === undefined
            ? ''
            : plain(
                `↻ correction: ${printable(record.callId)} was ${recordSymbol(shown)} ${shown.outcome}, now\n`,
              );
        await write(
          io.stdout,
          `${correction}${formatLine(record, format, { source, colour, commandFree })}\n`,
        );
      }
    } catch (error: unknown) {
      return fail(`cannot read ${source}: ${describe(error)}`);
    }
    // A file name is text a person did not write (a glob over an agent's files): escaped too.
    const prefix =
      values.html !== undefined || names.length > 1
        ? `${printable(source)}: `
        : '';
    await write(
      notes,
      `${plain(`${prefix}${formatSummary(trace.summary)}`)}\n`,
    );
    const unreadable = unreadableReason(trace.summary, values.harness);
    if (unreadable !== undefined)
      return fail(`cannot read ${source}: ${unreadable}`);
    // A denial did not run: it is not the failure --fail-on-error is for.
    failed ||= trace.summary.error > 0;
    traces.push({ name: source, records });
  }

  if (tally) await write(notes, `\n${plain(tally.format(colour))}\n`);

  const outputs = [
    { file: values.html, what: 'report', render: renderHtmlReport },
    { file: values.junit, what: 'JUnit report', render: renderJunitReport },
  ];
  for (const { file: out, what, render } of outputs) {
    if (out === undefined) continue;
    try {
      writeFileSync(out, render(traces));
    } catch (error: unknown) {
      return fail(`cannot write ${out}: ${describe(error)}`);
    }
    await write(notes, `${what} written to ${printable(out)}\n`);
  }
  return values['fail-on-error'] && failed ? CliExit.CallsFailed : CliExit.Ok;
}
