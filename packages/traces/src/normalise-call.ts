import type { CallEvidence } from './call-evidence.ts';
import type { CallRecord } from './call-record.ts';
import { ObservedOutcome } from '@candor/tools';

/** Options of {@link normaliseCall}. */
export interface NormaliseOptions {
  /**
   * Report the table's pure translation of the vendor word, ignoring exit codes and
   * escalations. Off by default: evidence beats the vendor's word.
   */
  readonly vendorOnly?: boolean;
}

// Already canonical: what `toISOString` would return, so parsing and printing it is wasted work.
const canonicalIso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/u;

const dayMs = 86_400_000;

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

// `new Date(ms).toISOString()` costs about a microsecond, which dominated normalising opencode
// traces; this is the same civil-calendar arithmetic (Hinnant's days-to-civil) done directly.
function isoFromEpochMs(ms: number): string | null {
  // Years 1970-9999 only; anything else goes through Date, which also rejects out-of-range.
  if (ms < 0 || ms >= 253_402_300_800_000) {
    const date = new Date(ms);
    return Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  const whole = Math.floor(ms);
  const days = Math.floor(whole / dayMs);
  const inDay = whole - days * dayMs;
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra -
    (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(inDay / 3_600_000);
  const minutes = Math.floor((inDay % 3_600_000) / 60_000);
  const seconds = Math.floor((inDay % 60_000) / 1000);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(inDay % 1000, 3)}Z`;
}

function toIsoTime(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Epoch milliseconds (opencode). Seconds would land in 1970, which no trace is from.
    return isoFromEpochMs(value);
  }
  if (typeof value === 'string' && value !== '') {
    if (canonicalIso.test(value)) return value;
    const time = Date.parse(value);
    return Number.isNaN(time) ? null : isoFromEpochMs(time);
  }
  return null;
}

// Rules 2-4 in order: the first piece of evidence that speaks, with what it says. A tuple is
// allocated only for the calls it concerns, which are few.
function overruling(
  evidence: CallEvidence,
): readonly [ObservedOutcome, string] | undefined {
  const { exitCode } = evidence;
  if (typeof exitCode === 'number' && exitCode !== 0) {
    return [ObservedOutcome.ERROR, `exit code ${exitCode}`];
  }
  if (evidence.escalations.length > 0) {
    return [ObservedOutcome.ERROR, evidence.escalations.join('; ')];
  }
  // A declared exit code that is null means the command never exited on its own (opencode:
  // killed by a signal, timed out, aborted): that is not evidence of success.
  if (exitCode === null && evidence.vendorOutcome === ObservedOutcome.SUCCESS) {
    return [ObservedOutcome.UNKNOWN, 'no exit code'];
  }
  return undefined;
}

/**
 * The one place a call record is built. Every harness goes through here with the same rules:
 * a call the harness marked as denied is `denied` (it did not run); a call with no outcome line
 * is `unknown`; a structured exit code other than 0 makes the call an error even when the
 * vendor said it completed; a table escalation (such as opencode's `tool:"invalid"`) makes it
 * an error; otherwise the table's translation of the vendor word stands, and a word the table
 * does not know is `unknown`. The raw vendor word is always kept in `vendorStatus`.
 *
 * @example
 * ```ts
 * const record = normaliseCall(evidence, { vendorOnly: false });
 * record.outcome; // 'success' | 'partial' | 'error' | 'denied' | 'unknown'
 * ```
 */
export function normaliseCall(
  evidence: CallEvidence,
  options: NormaliseOptions = {},
): CallRecord {
  // Silence is unknown, whatever the table might say about absent words.
  let outcome: ObservedOutcome = evidence.settled
    ? evidence.vendorOutcome
    : ObservedOutcome.UNKNOWN;
  let reason: string | null = null;
  if (evidence.denied) {
    // The harness's own mark: whatever else the trace says, the call was refused, not run.
    outcome = ObservedOutcome.DENIED;
  } else if (evidence.settled && options.vendorOnly !== true) {
    const overruled = overruling(evidence);
    // Only say why when the evidence changed the answer.
    if (overruled !== undefined && overruled[0] !== outcome) {
      [outcome, reason] = overruled;
    }
  }
  const { denialReason, exitCode, tool } = evidence;
  return Object.freeze({
    harness: evidence.harness,
    callId: evidence.callId,
    tool: typeof tool === 'string' ? tool : '',
    argsSummary: evidence.argsSummary,
    outcome,
    vendorStatus: evidence.settled ? evidence.vendorStatus : null,
    vendorField: evidence.settled ? evidence.vendorField : null,
    denialReason:
      typeof denialReason === 'string' && denialReason !== ''
        ? denialReason
        : null,
    evidence: reason,
    resultLength: evidence.resultLength,
    exitCode: typeof exitCode === 'number' ? exitCode : null,
    startedAt: toIsoTime(evidence.startedAt),
    endedAt: toIsoTime(evidence.endedAt),
    line: evidence.line,
  });
}
