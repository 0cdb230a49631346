import { describe, expect, it } from 'vitest';
import {
  checkConsumerReport,
  checkTraceRecords,
  ConsumerPath,
  EXPECTED_CALLS,
} from '../install-test/consumer-expectations.ts';

const expected = {
  module: 'esm',
  nodeMajor: 22,
  path: ConsumerPath.registry,
} as const;

const goodCalls = [
  { tool: 'add', status: 'success', code: null, text: '5' },
  { tool: 'divide', status: 'success', code: null, text: '2' },
  {
    tool: 'divide',
    status: 'error',
    code: 'INVALID_PARAM',
    text: 'b must not be zero',
  },
  { tool: 'calculator', status: 'success', code: null, text: '14' },
];

function report(overrides: Record<string, unknown> = {}): string {
  return `${JSON.stringify({
    node: 'v22.23.3',
    module: 'esm',
    path: 'registry',
    calls: goodCalls,
    ...overrides,
  })}\n`;
}

describe('checkConsumerReport', () => {
  it('accepts the report of a correct run', () => {
    expect(checkConsumerReport(report(), expected)).toEqual([]);
    expect(goodCalls).toHaveLength(EXPECTED_CALLS.length);
  });

  it('reads the last line, after anything a package printed first', () => {
    expect(checkConsumerReport(`a warning\n${report()}`, expected)).toEqual([]);
  });

  it('fails output that is not a report', () => {
    expect(
      checkConsumerReport('Error: Cannot find module zod', expected),
    ).toEqual(['printed no JSON report: "Error: Cannot find module zod"']);
  });

  it('fails a run on another Node, as another module kind, or down the other path', () => {
    expect(
      checkConsumerReport(
        report({ node: 'v20.20.2', module: 'commonjs', path: 'tools' }),
        expected,
      ),
    ).toEqual([
      'ran on Node v20.20.2, expected v22.x',
      'ran as commonjs, expected esm',
      'took the tools path, expected registry',
    ]);
  });

  it('fails a call that ended with the wrong status, text or code', () => {
    const calls = [
      { tool: 'add', status: 'error', code: 'INTERNAL_ERROR', text: 'boom' },
      { tool: 'divide', status: 'success', code: null, text: '3' },
      { tool: 'divide', status: 'error', code: 'TIMEOUT', text: '' },
      { tool: 'calculator', status: 'success', code: null, text: '14.0' },
    ];
    expect(checkConsumerReport(report({ calls }), expected)).toEqual([
      'call #1 (add): status error, expected success: boom',
      'call #1 (add): text "boom", expected "5"',
      'call #2 (divide): text "3", expected "2"',
      'call #3 (divide): code TIMEOUT, expected INVALID_PARAM',
      'call #4 (calculator): text "14.0", expected "14"',
    ]);
  });

  it('fails a missing or extra call', () => {
    expect(
      checkConsumerReport(report({ calls: goodCalls.slice(0, 3) }), expected),
    ).toEqual(['made 3 calls, expected 4']);
    expect(
      checkConsumerReport(
        report({ calls: [...goodCalls, goodCalls[0]] }),
        expected,
      ),
    ).toEqual(['made 5 calls, expected 4', 'unexpected call #5']);
  });
});

describe('checkTraceRecords', () => {
  const line = (callId: string, outcome: string) =>
    JSON.stringify({ harness: 'claude-code', callId, outcome });

  it('accepts one record per call with the right outcomes', () => {
    expect(
      checkTraceRecords(
        `${line('toolu_install_A', 'success')}\n${line('toolu_install_B', 'error')}\n`,
      ),
    ).toEqual([]);
  });

  it('fails a wrong outcome, a missing call and an extra call', () => {
    expect(
      checkTraceRecords(
        [
          line('toolu_install_A', 'ok'),
          line('toolu_install_C', 'success'),
          line('toolu_install_D', 'success'),
        ].join('\n'),
      ),
    ).toEqual([
      'toolu_install_A: outcome "ok", expected "success"',
      'no record for toolu_install_B',
      '3 records, expected 2',
    ]);
  });

  it('fails output that is not JSON lines', () => {
    expect(checkTraceRecords('✓ success Bash ls')).toEqual([
      'not a JSON line: ✓ success Bash ls',
    ]);
  });
});
