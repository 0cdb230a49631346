/** A line that could not be read as a JSON object. */
export interface MalformedLine {
  /** 1-based line number. */
  readonly line: number;
  readonly message: string;
}

/**
 * Counts over everything pushed so far. `success`, `partial`, `error`, `denied` and `unknown`
 * count calls by outcome, one each, so they add up to `calls`.
 */
export interface TraceSummary {
  /** The harness whose table reads the trace, or null when none recognised it (yet). */
  readonly harness: string | null;
  readonly lines: number;
  readonly calls: number;
  readonly success: number;
  readonly partial: number;
  /** Calls that ran, or tried to, and failed: what `--fail-on-error` looks at. */
  readonly error: number;
  /** Calls the harness refused (permission, policy, declined): they did not run. */
  readonly denied: number;
  /** Calls with no outcome line, or a word no table knows. Never counted as success. */
  readonly unknown: number;
  readonly malformed: number;
  /** The first {@link malformedSampleLimit} malformed lines, with their line numbers. */
  readonly malformedLines: readonly MalformedLine[];
  /** Lines given up on before any table recognised the format (auto-detection only). */
  readonly unrecognised: number;
  /** Calls emitted while still in flight because the window was full. */
  readonly evicted: number;
}

/** How many malformed lines are kept with their numbers; the rest are only counted. */
export const malformedSampleLimit = 20;
