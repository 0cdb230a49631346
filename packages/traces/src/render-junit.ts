import type { CallRecord } from './call-record.ts';
import { formatRecord } from './format-record.ts';
import { inTraceOrder, type ReportTrace } from './report-trace.ts';

// XML 1.0 allows tab, LF and CR but no other C0 control, even as a reference, and no lone
// surrogate: such characters become U+FFFD so the report always parses.
const notXml =
  // eslint-disable-next-line no-control-regex -- the control characters are the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function escapeText(text: string): string {
  return text
    .replace(notXml, '\uFFFD')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}

function escapeAttribute(text: string): string {
  // Attribute values are normalised by parsers (a raw newline reads as a space): keep them.
  return escapeText(text)
    .replaceAll('"', '&quot;')
    .replaceAll('\n', '&#10;')
    .replaceAll('\r', '&#13;')
    .replaceAll('\t', '&#9;');
}

/** Seconds between the call's start and end where the trace records both. */
function seconds(record: CallRecord): string | null {
  if (record.startedAt === null || record.endedAt === null) return null;
  const elapsed = Date.parse(record.endedAt) - Date.parse(record.startedAt);
  return Number.isFinite(elapsed) && elapsed >= 0
    ? (elapsed / 1000).toFixed(3)
    : null;
}

function testcase(record: CallRecord): string {
  const tool = record.tool === '' ? '(unnamed tool)' : record.tool;
  const time = seconds(record);
  const attributes = [
    `name="${escapeAttribute(`${tool} ${record.callId}`)}"`,
    `classname="${escapeAttribute(`${record.harness}.${tool}`)}"`,
    ...(time === null ? [] : [`time="${time}"`]),
  ].join(' ');
  const text = formatRecord(record);
  switch (record.outcome) {
    case 'error':
      return `<testcase ${attributes}><failure type="error" message="${escapeAttribute(record.evidence ?? (record.vendorStatus === null ? 'failed' : `vendor "${record.vendorStatus}"`))}">${escapeText(text)}</failure></testcase>`;
    case 'denied':
      return `<testcase ${attributes}><skipped message="${escapeAttribute(`denied: ${record.denialReason ?? 'yes'}`)}"/></testcase>`;
    case 'unknown':
      return `<testcase ${attributes}><skipped message="${escapeAttribute(`outcome unknown: ${record.vendorStatus === null ? 'no outcome reported' : `vendor "${record.vendorStatus}"`}`)}"/></testcase>`;
    case 'success':
    case 'partial':
      return `<testcase ${attributes}/>`;
  }
}

/**
 * A JUnit XML report CI systems read (GitHub, GitLab, Jenkins): one `testsuite` per trace and one
 * `testcase` per call, named after the tool and the call id; a failed call is a `<failure>`, a
 * denied or unknown one is `<skipped>` (it did not run, or nobody knows whether it did).
 *
 * @example
 * ```ts
 * writeFileSync('calls.xml', renderJunitReport([{ name: 'run.jsonl', records }]));
 * ```
 */
export function renderJunitReport(traces: readonly ReportTrace[]): string {
  const given: unknown = traces;
  if (!Array.isArray(given)) {
    throw new TypeError(
      'renderJunitReport: traces must be an array of { name, records }',
    );
  }
  const count = (records: readonly CallRecord[], ...words: string[]) =>
    records.filter((record) => words.includes(record.outcome)).length;
  const all = traces.flatMap((trace) => trace.records);
  const suites = traces.map((trace) => {
    const head = [
      `name="${escapeAttribute(trace.name)}"`,
      `tests="${trace.records.length}"`,
      `failures="${count(trace.records, 'error')}"`,
      'errors="0"',
      `skipped="${count(trace.records, 'denied', 'unknown')}"`,
    ].join(' ');
    const cases = inTraceOrder(trace.records).map(
      (record) => `    ${testcase(record)}\n`,
    );
    return `  <testsuite ${head}>\n${cases.join('')}  </testsuite>\n`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="candor-trace" tests="${all.length}" failures="${count(all, 'error')}" errors="0" skipped="${count(all, 'denied', 'unknown')}">
${suites.join('')}</testsuites>
`;
}
