/**
 * One truthful view of tool-call outcomes across agent CLI traces. Each harness is a
 * declarative table file; one normalisation function builds every call record.
 *
 * @packageDocumentation
 * @module \@candor/traces
 */
export {
  builtinHarnesses,
  builtinTraceTables,
} from './builtin-trace-tables.ts';
export type { BuiltinHarness } from './builtin-trace-tables.ts';
export type { CallEvidence } from './call-evidence.ts';
export type { CallRecord } from './call-record.ts';
export { formatGithub } from './format-github.ts';
export { formatRecord, recordSymbol } from './format-record.ts';
export { formatSummary } from './format-summary.ts';
export { renderHtmlReport } from './html-report.ts';
export type { ReportTrace } from './report-trace.ts';
export { loadTraceTable } from './load-trace-table.ts';
export { measureResult } from './measure-result.ts';
export { normaliseCall } from './normalise-call.ts';
export type { NormaliseOptions } from './normalise-call.ts';
export { parseTraceTable } from './parse-trace-table.ts';
export type { TraceTable } from './parse-trace-table.ts';
export { readTrace } from './read-trace.ts';
export type { TraceReading } from './read-trace.ts';
export { renderJunitReport } from './render-junit.ts';
export { CliExit, runCli } from './run-cli.ts';
export type { CliIo } from './run-cli.ts';
export { summariseArguments } from './summarise-arguments.ts';
export { TraceNormaliser } from './trace-normaliser.ts';
export type { TraceNormaliserOptions } from './trace-normaliser-options.ts';
export { malformedSampleLimit } from './trace-summary.ts';
export type { MalformedLine, TraceSummary } from './trace-summary.ts';
export { TraceTableError } from './trace-table-error.ts';
export type { TraceTableProblem } from './trace-table-error.ts';
export { TraceTableSchema } from './trace-table-schema.ts';
export type { TraceTableDefinition } from './trace-table-schema.ts';
// The outcome words are @candor/tools' own, re-exported so a reader of traces needs no second import.
export { isObservedOutcome, ObservedOutcome } from '@candor/tools';
