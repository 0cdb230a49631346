import { outcomeSymbol } from './format-record.ts';
import { printable } from './printable.ts';
import type { TraceSummary } from './trace-summary.ts';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * The closing lines of a report: counts per outcome and every malformed line kept by number.
 *
 * @example
 * ```ts
 * formatSummary(trace.summary);
 * // codex: 4 calls · 1 ✓ success · 1 ✗ error · 1 ⊘ denied · 1 ? unknown
 * ```
 */
export function formatSummary(summary: TraceSummary): string {
  const lines: string[] = [];
  if (summary.harness === null) {
    lines.push(
      `no harness recognised in ${plural(summary.lines, 'line')}; name one with --harness`,
    );
  } else {
    // Partial is shown only when a table produced it: no shipped harness reports one.
    const counts = (
      ['success', 'partial', 'error', 'denied', 'unknown'] as const
    )
      .filter((word) => word !== 'partial' || summary.partial > 0)
      .map((word) => `${summary[word]} ${outcomeSymbol[word]} ${word}`);
    lines.push(
      `${printable(summary.harness)}: ${plural(summary.calls, 'call')} · ${counts.join(' · ')}`,
    );
  }
  if (summary.malformed > 0) {
    lines.push(`${plural(summary.malformed, 'malformed line')} skipped:`);
    for (const malformed of summary.malformedLines) {
      // A parser's message quotes the line, and the line is the trace's own text.
      lines.push(`  line ${malformed.line}: ${printable(malformed.message)}`);
    }
    const unlisted = summary.malformed - summary.malformedLines.length;
    if (unlisted > 0) lines.push(`  … and ${unlisted} more`);
  }
  if (summary.unrecognised > 0 && summary.harness !== null) {
    lines.push(
      `${plural(summary.unrecognised, 'line')} before the format was recognised were dropped`,
    );
  }
  if (summary.evicted > 0) {
    lines.push(
      `${plural(summary.evicted, 'call')} reported as unknown because the window was full`,
    );
  }
  return lines.join('\n');
}
