import { type FleetStatus, type FleetToolStatus } from '../fleet-status.ts';

/** `ms` for a person: tenths of a second under a minute, then minutes, then hours. */
function duration(ms: number): string {
  if (ms < 60_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min`;
  return `${Math.floor(ms / 3_600_000)} h`;
}

/** Anything read from Redis may hold terminal control characters: each prints as `?`. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this removes
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

function windowCell({ window }: FleetToolStatus): string {
  if (window === undefined) return '-';
  if (!window.readable) return 'not a window';
  return `${window.calls} calls, ${window.failures} failed`;
}

function trialCell({ trial }: FleetToolStatus): string {
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
  const header = `fleet ${JSON.stringify(where.prefix)} at ${where.url}: ${status.tools.length} tools, server time ${new Date(status.now).toISOString()}`;
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
      trialCell(tool),
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
