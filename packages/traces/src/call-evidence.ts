import type { ObservedOutcome } from '@candor/tools';

/**
 * Everything the trace said about one call, gathered line by line and still uninterpreted
 * except for the table's translation of the vendor word. `normaliseCall` turns it into a record.
 */
export interface CallEvidence {
  readonly harness: string;
  readonly callId: string;
  readonly line: number;
  readonly tool: unknown;
  /** Summarised on arrival so large arguments are not kept alive while the call is open. */
  readonly argsSummary: string;
  /** True once an outcome line was seen for the call. */
  readonly settled: boolean;
  readonly vendorStatus: string | null;
  /** The field the word was read from when its value was not text (`is_error`), else null. */
  readonly vendorField: string | null;
  /** The table's translation of `vendorStatus` (unknown when the word is not in the map). */
  readonly vendorOutcome: ObservedOutcome;
  /** The raw value at the table's `exit_code` path: undefined when absent, null when null. */
  readonly exitCode: unknown;
  /** Reasons of the table's `escalate` entries that matched the outcome line. */
  readonly escalations: readonly string[];
  /** True once a denial line marked the call; the record's outcome is then `denied`. */
  readonly denied: boolean;
  readonly denialReason: unknown;
  /** Measured on arrival, for the same reason as `argsSummary`. */
  readonly resultLength: number | null;
  readonly startedAt: unknown;
  readonly endedAt: unknown;
}
