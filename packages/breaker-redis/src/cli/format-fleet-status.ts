import { type FleetStatus, type FleetToolStatus } from '../fleet-status.ts';

/** `ms` for a person: tenths of a second under a minute, then minutes, then hours. */
function duration(ms: number): string {
  if (ms < 60_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min`;
  return `${Math.floor(ms / 3_600_000)} h`;
}

const unsafe =
  // eslint-disable-next-line no-control-regex -- control characters are what this matches
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * Anything read from Redis may hold terminal control characters, or the Unicode ones that reorder
 * or hide text (bidi overrides and isolates, zero-width marks, line separators: a name written
 * right to left can show as another tool's): each prints as `?`.
 */
export function printable(text: string): string {
  return text.replace(unsafe, '?');
}

/**
 * `value` as one line of JSON for a terminal: the characters {@link printable} replaces are
 * written as `\uXXXX` escapes (JSON.stringify leaves C1 and bidi controls raw), the same JSON.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value).replace(
    unsafe,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function windowCell({ window }: FleetToolStatus): string {
  if (window === undefined) return '-';
  if (!window.readable) return 'not a window';
  return `${window.calls} calls, ${window.failures} failed`;
}

function trialCell({ trial, record }: FleetToolStatus, now: number): string {
  // Several trials: their slots are in the record (fleet-slot-scripts.ts), not the lease key.
  if (record?.permitted !== undefined) {
    const live = Object.values(record.trials ?? {}).filter((at) => at > now);
    const ended = record.trialsEnded ?? 0;
    const results =
      record.state === 'half_open'
        ? `, ${ended} ended, ${record.trialsFailed ?? 0} failed`
        : '';
    return `${live.length} of ${record.permitted} slots taken${results}`;
  }
  if (trial === undefined) return '-';
  return `${trial.kind} by ${printable(trial.holder)} (${duration(trial.expiresInMs)} left)`;
}

function lastCell(tool: FleetToolStatus, now: number): string {
  if (tool.lastTransitionAt === undefined) return 'never';
  const by = tool.record?.by;
  const ago = `${duration(now - tool.lastTransitionAt)} ago`;
  return by === undefined ? ago : `${ago} by ${printable(by)}`;
}

/**
 * The text `candor-fleet status` prints: one header line, then one row per tool (state, hold,
 * window counts, trial holder, last transition), columns padded to their widest cell.
 */
export function formatFleetStatus(
  status: FleetStatus,
  where: { readonly url: string; readonly prefix: string },
): string {
  const header = `fleet ${printable(JSON.stringify(where.prefix))} at ${printable(where.url)}: ${status.tools.length} tools, server time ${new Date(status.now).toISOString()}`;
  if (status.tools.length === 0) {
    return `${header}\nno tool has a record, an epoch, a window or a trial under this prefix\n`;
  }
  const rows = [
    ['TOOL', 'STATE', 'HOLD', 'WINDOW', 'TRIAL', 'LAST TRANSITION'],
    ...status.tools.map((tool) => [
      printable(tool.tool),
      tool.state,
      tool.forced === undefined ? '-' : `forced ${tool.forced}`,
      windowCell(tool),
      trialCell(tool, status.now),
      lastCell(tool, status.now),
    ]),
  ];
  const widths = rows[0]?.map((_, column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths?.[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  return `${header}\n${lines.join('\n')}\n`;
}
