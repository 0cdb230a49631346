import type { CallRecord } from './call-record.ts';
import { formatRecord } from './format-record.ts';

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

/**
 * A GitHub Actions workflow command for a call that needs a person's eye: `::error` for a failed
 * call, `::warning` for one whose outcome is unknown (unknown is not success), pointing at the
 * trace file and the call's line. Other calls get their plain text line, which the log shows as is.
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
  if (command === null) return text;
  const tool = record.tool === '' ? '(unnamed tool)' : record.tool;
  const verdict = command === 'error' ? 'failed' : 'outcome unknown';
  const properties = [
    `file=${escapeProperty(file)}`,
    `line=${record.line}`,
    `title=${escapeProperty(`${tool} ${verdict} (${record.callId})`)}`,
  ];
  return `::${command} ${properties.join(',')}::${escapeData(text)}`;
}
