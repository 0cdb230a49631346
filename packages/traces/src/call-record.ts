import type { ObservedOutcome } from '@candor/tools';

/**
 * One tool call as Candor reports it, whichever harness produced it. Records are plain frozen
 * data so they serialise with `JSON.stringify` as they are.
 */
export interface CallRecord {
  /** The table that read the call, such as `codex`. */
  readonly harness: string;
  /** The harness's own id for the call (`toolu_…`, `item_3`, `callID`). */
  readonly callId: string;
  /** The tool name, or `''` when the trace never named it. */
  readonly tool: string;
  /** A short one-line summary of the arguments (never used for the result length). */
  readonly argsSummary: string;
  /**
   * `success`, `partial`, `error`, `denied` or `unknown` (the words of `@candor/tools`). Never a
   * raw vendor word. `denied` means the harness refused the call, so it did not run.
   */
  readonly outcome: ObservedOutcome;
  /** The vendor's own word, kept as written (`"completed"`, `"true"`, `"0"`), or null if none. */
  readonly vendorStatus: string | null;
  /**
   * The field the vendor's word came from when the trace gave a boolean or number rather than a
   * word (`is_error` for claude-code's `is_error: false`), so the word is shown as that fact; null
   * for a word given as text, or no word.
   */
  readonly vendorField: string | null;
  /** What marked a denial, such as `permission-rule` or `policy_violation`; else null. */
  readonly denialReason: string | null;
  /**
   * Why the outcome differs from the vendor's word (`exit code 1`), or null when it does not (a
   * denial's reason is in `denialReason`).
   */
  readonly evidence: string | null;
  /** Length of the result text, never of the arguments; null when no result was seen. */
  readonly resultLength: number | null;
  /** A structured exit code where the harness gives one. */
  readonly exitCode: number | null;
  /** ISO 8601 time the call started, where the trace says. */
  readonly startedAt: string | null;
  /** ISO 8601 time the outcome was reported, where the trace says. */
  readonly endedAt: string | null;
  /** 1-based line of the trace where the call first appeared. */
  readonly line: number;
}
