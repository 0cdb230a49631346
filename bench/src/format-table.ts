/** One cell per column; every row has as many cells as there are headers. */
export type TableRow = readonly string[];

const UNITS_NS = [
  { limit: 1e3, divisor: 1, unit: 'ns' },
  { limit: 1e6, divisor: 1e3, unit: 'µs' },
  { limit: 1e9, divisor: 1e6, unit: 'ms' },
] as const;

function significant(value: number): string {
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function checkFinite(what: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(
      `${what} must be a finite number of at least 0, got ${String(value)}`,
    );
  }
}

/**
 * A duration given in nanoseconds, in the largest unit that keeps it above 1, with three
 * significant digits: `formatDuration(1_234)` is `1.23 µs`.
 */
export function formatDuration(ns: number): string {
  checkFinite('A duration', ns);
  for (const { limit, divisor, unit } of UNITS_NS) {
    if (ns < limit) return `${significant(ns / divisor)} ${unit}`;
  }
  return `${significant(ns / 1e9)} s`;
}

/** A ratio as `3.42×`; ratios are what the goals are judged on. */
export function formatRatio(ratio: number): string {
  checkFinite('A ratio', ratio);
  return `${significant(ratio)}×`;
}

/** A byte count in MB (10^6 bytes), signed, since a heap delta can be negative. */
export function formatMegabytes(bytes: number): string {
  if (!Number.isFinite(bytes)) {
    throw new RangeError(`A byte count must be finite, got ${String(bytes)}`);
  }
  const mb = bytes / 1e6;
  const sign = mb < 0 ? '−' : '';
  return `${sign}${significant(Math.abs(mb))} MB`;
}

/** A throughput in MB/s (10^6 bytes per second). */
export function formatThroughput(bytesPerSecond: number): string {
  checkFinite('A throughput', bytesPerSecond);
  return `${significant(bytesPerSecond / 1e6)} MB/s`;
}

// A pipe inside a cell would start a new column.
function escapeCell(cell: string): string {
  return cell.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/**
 * A GitHub-flavoured Markdown table. The first column is left-aligned, the others right-aligned
 * (they hold numbers).
 */
export function markdownTable(
  headers: readonly string[],
  rows: readonly TableRow[],
): string {
  if (headers.length === 0) {
    throw new RangeError('A table needs at least one column');
  }
  rows.forEach((row, index) => {
    if (row.length !== headers.length) {
      throw new RangeError(
        `Table row ${index + 1} has ${row.length} cells; the table has ${headers.length} columns`,
      );
    }
  });
  const line = (cells: readonly string[]): string =>
    `| ${cells.map(escapeCell).join(' | ')} |`;
  const rule = headers.map((_, index) => (index === 0 ? '---' : '---:'));
  return [line(headers), line(rule), ...rows.map(line)].join('\n');
}
