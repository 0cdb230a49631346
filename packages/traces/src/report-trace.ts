import type { CallRecord } from './call-record.ts';

/** One trace of a report: the name it is shown by (the file as given) and its calls. */
export interface ReportTrace {
  readonly name: string;
  readonly records: readonly CallRecord[];
}
