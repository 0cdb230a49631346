import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { formatRecord, recordSymbol } from './format-record.ts';
import { formatSummary } from './format-summary.ts';
import type { TraceSummary } from './trace-summary.ts';

const record: CallRecord = {
  harness: 'codex',
  callId: 'item_2',
  tool: 'command_execution',
  argsSummary: 'bash -lc ls',
  outcome: 'error',
  vendorStatus: 'completed',
  vendorField: null,
  denialReason: null,
  evidence: 'exit code 2',
  resultLength: 10,
  exitCode: 2,
  startedAt: null,
  endedAt: null,
  line: 4,
};

describe('formatRecord', () => {
  it('marks each outcome word', () => {
    expect(recordSymbol({ ...record, outcome: 'success' })).toBe('✓');
    expect(recordSymbol({ ...record, outcome: 'partial' })).toBe('◐');
    expect(recordSymbol(record)).toBe('✗');
    expect(recordSymbol({ ...record, outcome: 'denied' })).toBe('⊘');
    expect(recordSymbol({ ...record, outcome: 'unknown' })).toBe('?');
  });

  it('shows the facts behind the outcome', () => {
    expect(formatRecord(record)).toBe(
      '✗ error   command_execution bash -lc ls  [item_2 · vendor "completed" · exit 2 · evidence: exit code 2]',
    );
    expect(
      formatRecord({
        ...record,
        outcome: 'unknown',
        vendorStatus: null,
        exitCode: null,
        evidence: null,
        tool: '',
        argsSummary: '',
      }),
    ).toBe('? unknown (unnamed tool)  [item_2 · no outcome reported]');
    expect(
      formatRecord({
        ...record,
        outcome: 'denied',
        denialReason: 'declined',
        exitCode: null,
        evidence: null,
      }),
    ).toBe(
      '⊘ denied  command_execution bash -lc ls  [item_2 · vendor "completed" · denied: declined]',
    );
  });
});

describe('formatSummary', () => {
  const summary: TraceSummary = {
    harness: 'codex',
    lines: 30,
    calls: 1,
    success: 0,
    partial: 0,
    error: 1,
    denied: 0,
    unknown: 0,
    malformed: 22,
    malformedLines: [{ line: 3, message: 'not a JSON object' }],
    unrecognised: 0,
    evicted: 2,
  };

  it('counts calls, lists malformed lines by number and says what was cut short', () => {
    expect(formatSummary(summary).split('\n')).toEqual([
      'codex: 1 call · 0 ✓ success · 1 ✗ error · 0 ⊘ denied · 0 ? unknown',
      '22 malformed lines skipped:',
      '  line 3: not a JSON object',
      '  … and 21 more',
      '2 calls reported as unknown because the window was full',
    ]);
  });

  it('shows partial only when a table produced one, and every word with its mark', () => {
    expect(
      formatSummary({
        ...summary,
        calls: 9,
        success: 4,
        partial: 1,
        error: 2,
        denied: 1,
        unknown: 1,
        malformed: 0,
        malformedLines: [],
        evicted: 0,
      }),
    ).toBe(
      'codex: 9 calls · 4 ✓ success · 1 ◐ partial · 2 ✗ error · 1 ⊘ denied · 1 ? unknown',
    );
  });
});

describe('formatRecord shows a non-text vendor value as the fact it is', () => {
  it('says is_error: false rather than the bare word', () => {
    expect(
      formatRecord({
        ...record,
        harness: 'claude-code',
        outcome: 'success',
        vendorStatus: 'false',
        vendorField: 'is_error',
        evidence: null,
        exitCode: null,
      }),
    ).toContain('[item_2 · vendor is_error: false]');
  });
});
