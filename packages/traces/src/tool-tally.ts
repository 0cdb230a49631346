import type { CallRecord } from './call-record.ts';
import { outcomeSymbol } from './format-record.ts';
import { printable } from './printable.ts';
import { paintOutcome } from './terminal-colour.ts';
import type { ObservedOutcome } from '@candor/tools';

const words = ['success', 'partial', 'error', 'denied', 'unknown'] as const;

interface ToolCounts {
  calls: number;
  readonly outcomes: Record<ObservedOutcome, number>;
  readonly durations: number[];
}

function duration(record: CallRecord): number | null {
  if (record.startedAt === null || record.endedAt === null) return null;
  const elapsed = Date.parse(record.endedAt) - Date.parse(record.startedAt);
  return Number.isFinite(elapsed) && elapsed >= 0 ? elapsed : null;
}

function ms(value: number | undefined): string {
  if (value === undefined) return '–';
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${value} ms`;
}

/**
 * Counts per tool for the summary table: calls, each outcome, and the median and longest
 * duration of the calls whose trace records both ends (`–` where none does).
 */
export class ToolTally {
  readonly #tools = new Map<string, ToolCounts>();

  add(record: CallRecord): void {
    const name = record.tool === '' ? '(unnamed tool)' : record.tool;
    let counts = this.#tools.get(name);
    if (counts === undefined) {
      counts = {
        calls: 0,
        outcomes: { success: 0, partial: 0, error: 0, denied: 0, unknown: 0 },
        durations: [],
      };
      this.#tools.set(name, counts);
    }
    counts.calls += 1;
    counts.outcomes[record.outcome] += 1;
    const elapsed = duration(record);
    if (elapsed !== null) counts.durations.push(elapsed);
  }

  /**
   * The table, one row per tool (most calls first), columns padded to their widest cell. Only
   * the counts are coloured, and only when `colour` is true.
   *
   * @example
   * ```text
   * tool   calls  ✓  ◐  ✗  ⊘  ?  p50     max
   * bash       3  1  0  1  1  0  120 ms  2.0 s
   * ```
   */
  format(colour: boolean): string {
    const head = [
      'tool',
      'calls',
      ...words.map((word) => outcomeSymbol[word]),
      'p50',
      'max',
    ];
    const rows = [...this.#tools]
      .sort(([a, x], [b, y]) => y.calls - x.calls || a.localeCompare(b))
      .map(([name, counts]) => {
        const sorted = [...counts.durations].sort((a, b) => a - b);
        return [
          printable(name),
          String(counts.calls),
          ...words.map((word) => String(counts.outcomes[word])),
          ms(sorted[Math.floor((sorted.length - 1) / 2)]),
          ms(sorted.at(-1)),
        ];
      });
    const widths = head.map((cell, column) =>
      Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
    );
    const line = (cells: readonly string[], paint: boolean) =>
      cells
        .map((cell, column) => {
          const width = widths[column] ?? 0;
          const padded =
            column === 0 ? cell.padEnd(width) : cell.padStart(width);
          const word = words[column - 2];
          return paint && word !== undefined && cell !== '0'
            ? paintOutcome(padded, word, colour)
            : padded;
        })
        .join('  ')
        .trimEnd();
    return [line(head, false), ...rows.map((row) => line(row, true))].join(
      '\n',
    );
  }
}
