import type { CallRecord } from './call-record.ts';
import { Outcome } from './outcome.ts';

/** The mark shown for a record: ⊘ denied (whatever its outcome), ✓ ok, ✗ error, ? unknown. */
export function recordSymbol(record: CallRecord): string {
  if (record.denied) return '⊘';
  switch (record.outcome) {
    case Outcome.Ok:
      return '✓';
    case Outcome.Error:
      return '✗';
    case Outcome.Unknown:
      return '?';
  }
}

function label(record: CallRecord): string {
  if (record.denied) return 'denied';
  return record.outcome === Outcome.Unknown ? 'unknown' : record.outcome;
}

/**
 * One human-readable line for a call: its mark, tool and arguments, then the call id and the
 * facts behind the outcome (the vendor's word, the exit code, what overruled the vendor).
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
  else if (record.outcome === Outcome.Unknown)
    facts.push('no outcome reported');
  else facts.push('no vendor word');
  if (record.exitCode !== null) facts.push(`exit ${record.exitCode}`);
  if (record.denied) facts.push(`denied: ${record.denialReason ?? 'yes'}`);
  if (record.evidence !== null) facts.push(`evidence: ${record.evidence}`);
  const tool = record.tool === '' ? '(unnamed tool)' : record.tool;
  const args = record.argsSummary === '' ? '' : ` ${record.argsSummary}`;
  return `${recordSymbol(record)} ${label(record).padEnd(7)} ${tool}${args}  [${facts.join(' · ')}]`;
}
