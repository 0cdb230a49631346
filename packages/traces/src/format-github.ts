import type { CallRecord } from './call-record.ts';
import { formatRecord } from './format-record.ts';
import { printable } from './printable.ts';

// GitHub's workflow-command escaping, as actions/toolkit's `command.ts` writes it and the runner's
// ActionCommand reads it back: data escapes % CR LF; property values also escape : and ,.
// https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions
function escapeData(text: string): string {
  return text
    .replaceAll('%', '%25')
    .replaceAll('\r', '%0D')
    .replaceAll('\n', '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

// The runner reads a command from every line a step prints (ActionCommandManager): `::name::`
// once leading white space is trimmed, else the legacy `##[name]` anywhere in the line. A line
// that shows a trace's text must hold neither, or a tool named `::stop-commands::x` would silence
// every annotation after it. The runner's matches are culture-aware, which may skip controls and
// format characters, so those do not hide a marker from this either.
const skippable = '\\p{Cc}\\p{Cf}\\p{Default_Ignorable_Code_Point}';
const legacyMarker = new RegExp(`(#[${skippable}]*#[${skippable}]*)\\[`, 'gu');
const leadingMarker = new RegExp(
  `^([\\s${skippable}]*):(?=[${skippable}]*:)`,
  'u',
);

/**
 * `text` (lines) as the runner reads no command from it: the `[` of a `##[` and the first `:` of a
 * line's leading `::` are written as escapes (`\u005b`, `\u003a`), in the style of
 * {@link printable}. For every line `--format github` prints that is not its own command.
 *
 * @example
 * ```ts
 * githubPlain('echo ##[add-mask]x'); // 'echo ##\\u005badd-mask]x'
 * ```
 */
export function githubPlain(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      line
        .replace(legacyMarker, '$1\\u005b')
        .replace(leadingMarker, '$1\\u003a'),
    )
    .join('\n');
}

/**
 * A GitHub Actions workflow command for a call that needs a person's eye: `::error` for a failed
 * call, `::warning` for one whose outcome is unknown (unknown is not success), pointing at the
 * trace file and the call's line. Other calls get their plain text line, with no command in it
 * (see `githubPlain`).
 *
 * @example
 * ```ts
 * formatGithub(record, 'run.jsonl');
 * // ::error file=run.jsonl,line=7,title=bash failed (call_9)::✗ error   bash {"command":"false"}  [call_9 · …]
 * ```
 */
export function formatGithub(record: CallRecord, file: string): string {
  const text = formatRecord(record);
  const command =
    record.outcome === 'error'
      ? 'error'
      : record.outcome === 'unknown'
        ? 'warning'
        : null;
  if (command === null) return githubPlain(text);
  const tool = record.tool === '' ? '(unnamed tool)' : record.tool;
  // The title is the trace's text too: printed, it must not restyle a terminal or the log.
  const verdict = command === 'error' ? 'failed' : 'outcome unknown';
  const properties = [
    `file=${escapeProperty(printable(file))}`,
    `line=${record.line}`,
    `title=${escapeProperty(printable(`${tool} ${verdict} (${record.callId})`))}`,
  ];
  return `::${command} ${properties.join(',')}::${escapeData(text)}`;
}
