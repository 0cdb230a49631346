import type { CallRecord } from './call-record.ts';

/** One trace of a report: the name it is shown by (the file as given) and its calls. */
export interface ReportTrace {
  readonly name: string;
  readonly records: readonly CallRecord[];
}

/**
 * Records in the order their calls first appear in the trace. A reader hands out a call whose
 * outcome a later line could still change (an error before a run-end denial list) only when that
 * line arrives, after calls that came later; a report shows the trace's own order.
 */
export function inTraceOrder(
  records: readonly CallRecord[],
): readonly CallRecord[] {
  let previous = -Infinity;
  for (const record of records) {
    if (record.line < previous) {
      return [...records].sort((a, b) => a.line - b.line);
    }
    previous = record.line;
  }
  return records;
}
