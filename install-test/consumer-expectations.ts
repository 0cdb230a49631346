/** Which API the consumer scripts drove: the registry seam, or `@candor/tools` alone. */
export const ConsumerPath = { registry: 'registry', tools: 'tools' } as const;

/** `registry` or `tools`. */
export type ConsumerPath = (typeof ConsumerPath)[keyof typeof ConsumerPath];

/** What one consumer run must have printed. */
export interface ConsumerExpectation {
  readonly module: 'esm' | 'commonjs';
  /** The Node major the script had to run on, so a wrong binary cannot pass for the right one. */
  readonly nodeMajor: number;
  readonly path: ConsumerPath;
}

interface ExpectedCall {
  readonly tool: string;
  readonly status: 'success' | 'error';
  readonly text?: string;
  readonly code?: string;
}

/** The calls both consumer scripts make, and how each must end; the last needs @candor/builtins. */
export const EXPECTED_CALLS: readonly ExpectedCall[] = [
  { tool: 'add', status: 'success', text: '5' },
  { tool: 'divide', status: 'success', text: '2' },
  { tool: 'divide', status: 'error', code: 'INVALID_PARAM' },
  { tool: 'calculator', status: 'success', text: '14' },
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lastJsonLine(stdout: string): unknown {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function checkCall(index: number, actual: unknown): string[] {
  const expected = EXPECTED_CALLS[index];
  if (expected === undefined) return [`unexpected call #${index + 1}`];
  if (!isRecord(actual)) return [`call #${index + 1} is not an object`];
  const label = `call #${index + 1} (${expected.tool})`;
  const problems: string[] = [];
  if (actual['tool'] !== expected.tool) {
    problems.push(`${label}: tool ${String(actual['tool'])}`);
  }
  if (actual['status'] !== expected.status) {
    const why = typeof actual['text'] === 'string' ? `: ${actual['text']}` : '';
    problems.push(
      `${label}: status ${String(actual['status'])}, expected ${expected.status}${why}`,
    );
  }
  if (expected.text !== undefined && actual['text'] !== expected.text) {
    problems.push(
      `${label}: text ${JSON.stringify(actual['text'])}, expected "${expected.text}"`,
    );
  }
  if (expected.code !== undefined && actual['code'] !== expected.code) {
    problems.push(
      `${label}: code ${String(actual['code'])}, expected ${expected.code}`,
    );
  }
  return problems;
}

/**
 * Checks the JSON line a consumer script printed: the runtime and module kind it ran as, the path
 * it took and the status of every call. Returns the problems; none means the run was right.
 */
export function checkConsumerReport(
  stdout: string,
  expected: ConsumerExpectation,
): string[] {
  const report = lastJsonLine(stdout);
  if (!isRecord(report)) {
    return [`printed no JSON report: ${JSON.stringify(stdout.slice(-500))}`];
  }
  const problems: string[] = [];
  const node = report['node'];
  if (typeof node !== 'string' || !node.startsWith(`v${expected.nodeMajor}.`)) {
    problems.push(
      `ran on Node ${String(node)}, expected v${expected.nodeMajor}.x`,
    );
  }
  if (report['module'] !== expected.module) {
    problems.push(
      `ran as ${String(report['module'])}, expected ${expected.module}`,
    );
  }
  if (report['path'] !== expected.path) {
    problems.push(
      `took the ${String(report['path'])} path, expected ${expected.path}`,
    );
  }
  const calls = report['calls'];
  if (!Array.isArray(calls)) return [...problems, 'the report has no calls'];
  if (calls.length !== EXPECTED_CALLS.length) {
    problems.push(
      `made ${calls.length} calls, expected ${EXPECTED_CALLS.length}`,
    );
  }
  calls.forEach((call: unknown, index) => {
    problems.push(...checkCall(index, call));
  });
  return problems;
}

/** The calls of `consumer/claude-code-trace.jsonl`, and the outcome the traces CLI must give. */
export const EXPECTED_TRACE_OUTCOMES: Readonly<Record<string, string>> = {
  toolu_install_A: 'success',
  toolu_install_B: 'error',
};

/** Checks `candor-trace --json` output: one record per call, each with the right outcome. */
export function checkTraceRecords(stdout: string): string[] {
  const records: unknown[] = [];
  for (const line of stdout.split('\n').filter((text) => text.trim() !== '')) {
    try {
      records.push(JSON.parse(line));
    } catch {
      return [`not a JSON line: ${line}`];
    }
  }
  const problems: string[] = [];
  const seen = new Map<string, unknown>();
  for (const record of records) {
    if (isRecord(record) && typeof record['callId'] === 'string') {
      seen.set(record['callId'], record['outcome']);
    } else {
      problems.push(`a record without a callId: ${JSON.stringify(record)}`);
    }
  }
  for (const [callId, outcome] of Object.entries(EXPECTED_TRACE_OUTCOMES)) {
    if (!seen.has(callId)) problems.push(`no record for ${callId}`);
    else if (seen.get(callId) !== outcome) {
      problems.push(
        `${callId}: outcome ${JSON.stringify(seen.get(callId))}, expected "${outcome}"`,
      );
    }
  }
  if (seen.size !== Object.keys(EXPECTED_TRACE_OUTCOMES).length) {
    problems.push(
      `${seen.size} records, expected ${Object.keys(EXPECTED_TRACE_OUTCOMES).length}`,
    );
  }
  return problems;
}

/** What mcp-consumer.mjs must print: the calculator over a stdio MCP round trip. */
export function checkMcpReport(stdout: string): string[] {
  const lines = stdout
    .trim()
    .split('\n')
    .map((line): unknown => {
      try {
        return JSON.parse(line);
      } catch {
        return undefined;
      }
    });
  const [sum, division] = lines;
  const problems: string[] = [];
  if (!isRecord(sum) || sum['status'] !== 'success' || sum['text'] !== '14') {
    problems.push(`2 + 3 * 4 over MCP: ${JSON.stringify(sum)}`);
  }
  if (
    !isRecord(division) ||
    division['status'] !== 'error' ||
    division['code'] !== 'EXECUTION_ERROR'
  ) {
    problems.push(`1 / 0 over MCP: ${JSON.stringify(division)}`);
  }
  return problems;
}

/** What the README's `main.ts` prints, as the README's Usage section says. */
export const README_EXAMPLE_OUTPUT = 'error INVALID_PARAM';

/** How `npx tsx main.cts` fails on Node 20, quoted in the README's Install section. */
export const TSX_REQUIRE_FAILURE =
  "request for './tool-registry.js' is not in cache";

/** What importing Candor says when the project's zod is zod 3 (the needed range is read from
 * the package's peer dependency). */
export const ZOD3_ERROR_PARTS = ['found zod 3'] as const;
