import type { CallRecord } from './call-record.ts';
import { ObservedOutcome } from '@candor/tools';
import { printable } from './printable.ts';

/** The mark of each outcome word: ✓ success, ◐ partial, ✗ error, ⊘ denied, ? unknown. */
export const outcomeSymbol: Readonly<Record<ObservedOutcome, string>> = {
  success: '✓',
  partial: '◐',
  error: '✗',
  denied: '⊘',
  unknown: '?',
};

/** The mark shown for a record: ✓ success, ◐ partial, ✗ error, ⊘ denied, ? unknown. */
export function recordSymbol(record: CallRecord): string {
  return outcomeSymbol[record.outcome];
}

/**
 * One human-readable line for a call: its mark, tool and arguments, then the call id and the
 * facts behind the outcome (the vendor's word, the exit code, what overruled the vendor). Control,
 * line-separator and bidi characters from the trace are written as escapes (`\n`, `\u001b`), so
 * a call is always one line and the trace cannot restyle the terminal.
 *
 * @example
 * ```ts
 * formatRecord(record);
 * // ✗ error   bash {"command":"false"}  [call_9 · vendor "completed" · exit 1 · evidence: exit code 1]
 * ```
 */
export function formatRecord(record: CallRecord): string {
  const facts = [record.callId];
  if (record.vendorStatus !== null)
    facts.push(
      record.vendorField === null
        ? `vendor "${record.vendorStatus}"`
        : `vendor ${record.vendorField}: ${record.vendorStatus}`,
    );
  else if (record.outcome === ObservedOutcome.UNKNOWN)
    facts.push('no outcome reported');
  else facts.push('no vendor word');
  if (record.exitCode !== null) facts.push(`exit ${record.exitCode}`);
  if (record.outcome === ObservedOutcome.DENIED)
    facts.push(`denied: ${record.denialReason ?? 'yes'}`);
  if (record.evidence !== null) facts.push(`evidence: ${record.evidence}`);
  const tool = record.tool === '' ? '(unnamed tool)' : record.tool;
  const args = record.argsSummary === '' ? '' : ` ${record.argsSummary}`;
  // The trace's own text (tool, id, vendor word, reason) is escaped: one call, one line.
  return printable(
    `${recordSymbol(record)} ${record.outcome.padEnd(7)} ${tool}${args}  [${facts.join(' · ')}]`,
  );
}
