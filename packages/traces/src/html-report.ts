import { inTraceOrder, type ReportTrace } from './report-trace.ts';
import { htmlReportScript } from './html-report-script.ts';
import { htmlReportStyle } from './html-report-style.ts';

const outcomeIndex = {
  success: 0,
  partial: 1,
  error: 2,
  denied: 3,
  unknown: 4,
} as const;

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** Interns strings so 100k rows repeat a small index rather than the same tool name. */
function interner(): { readonly list: string[]; index(value: string): number } {
  const list: string[] = [];
  const seen = new Map<string, number>();
  return {
    list,
    index(value) {
      let at = seen.get(value);
      if (at === undefined) {
        at = list.length;
        list.push(value);
        seen.set(value, at);
      }
      return at;
    },
  };
}

/**
 * Short names for the trace column: the directories every name shares are dropped (one trace
 * keeps its file name), so five fixtures read `codex/exec-json.jsonl`, not five absolute paths.
 */
function traceLabels(names: readonly string[]): string[] {
  if (names.length === 0) return [];
  const split = names.map((name) => name.split(/[\\/]/));
  let shared = Math.min(...split.map((parts) => parts.length - 1));
  for (let depth = 0; depth < shared; depth += 1) {
    const part = split[0]?.[depth];
    if (!split.every((parts) => parts[depth] === part)) shared = depth;
  }
  return split.map((parts) => parts.slice(shared).join('/'));
}

/**
 * One self-contained HTML page for one or more traces: counts per outcome at the top, filters by
 * outcome, tool and trace, one timeline of every call with a mark and a word for its outcome, and
 * each call's evidence on demand. The page loads nothing (a Content-Security-Policy forbids it):
 * style, script and data are inline, and only the rows on screen are drawn.
 *
 * @example
 * ```ts
 * const records = [];
 * for await (const record of readTrace(createReadStream('run.jsonl'))) records.push(record);
 * writeFileSync('report.html', renderHtmlReport([{ name: 'run.jsonl', records }]));
 * ```
 */
export function renderHtmlReport(traces: readonly ReportTrace[]): string {
  // Read through `unknown` so narrowing leaves `traces` typed (isArray narrows readonly arrays to any[]).
  const given: unknown = traces;
  if (!Array.isArray(given)) {
    throw new TypeError(
      'renderHtmlReport: traces must be an array of { name, records }',
    );
  }
  const tools = interner();
  const harnesses = interner();
  const rows: unknown[] = [];
  traces.forEach((trace, traceIndex) => {
    for (const record of inTraceOrder(trace.records)) {
      // Column order is read by html-report-script.ts (T, TOOL, OUT, …).
      rows.push([
        traceIndex,
        tools.index(record.tool),
        outcomeIndex[record.outcome],
        record.callId,
        record.argsSummary,
        record.vendorStatus,
        record.vendorField,
        record.denialReason,
        record.evidence,
        record.resultLength,
        record.exitCode,
        record.startedAt,
        record.endedAt,
        record.line,
        harnesses.index(record.harness),
      ]);
    }
  });
  const data = JSON.stringify({
    traces: traceLabels(traces.map((trace) => trace.name)),
    files: traces.map((trace) => trace.name),
    tools: tools.list,
    harnesses: harnesses.list,
    rows,
  })
    // Inside <script>, only `</script` could end the element early; escaping every `<` rules it out.
    .replaceAll('<', '\\u003c');
  const title = `candor-trace: ${traces.map((trace) => trace.name).join(', ')}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${htmlReportStyle}</style>
</head>
<body>
<header>
<h1>candor-trace: <span id="total">0</span> calls</h1>
<ul id="counts" aria-label="Calls per outcome"></ul>
<label>Outcome <select id="outcome"><option value="all">all</option></select></label>
<label>Tool <select id="tool"><option value="all">all</option></select></label>
<label>Trace <select id="trace"><option value="all">all</option></select></label>
<p id="shown" aria-live="polite"></p>
</header>
<main>
<div id="viewport" role="table" aria-label="Tool calls">
<div class="row head" role="row"><span>outcome</span><span>trace</span><span>tool</span><span>arguments</span><span>call id</span></div>
<div id="spacer" role="rowgroup"></div>
<p id="empty" hidden>No call matches these filters.</p>
</div>
<aside id="details" aria-label="Evidence of the chosen call" hidden></aside>
</main>
<script type="application/json" id="candor-data">${data}</script>
<script>${htmlReportScript}</script>
</body>
</html>
`;
}
