import type { CallRecord } from './call-record.ts';
import type { NormaliseOptions } from './normalise-call.ts';
import type { TraceTable } from './parse-trace-table.ts';
import type { Logger } from '@candor/tools';

/** Options of {@link TraceNormaliser} and `readTrace`. */
export interface TraceNormaliserOptions extends NormaliseOptions {
  /** A table's harness name, or `'auto'` (the default) to recognise the format from the lines. */
  readonly harness?: string;
  /** The tables to choose from. Defaults to the built-in four. */
  readonly tables?: readonly TraceTable[];
  /** Pino-compatible logger; silent by default. */
  readonly logger?: Logger;
  /**
   * How many calls may be held at once while waiting for outcomes or late denials. Past it the
   * oldest call is emitted as it stands, which keeps memory constant. Default 10 000.
   */
  readonly window?: number;
  /**
   * Called with a provisional record the moment a call's outcome line is read, when the table
   * holds settled calls for a later line that can still change them (claude-code and opencode
   * list denials at the run's end). The record the normaliser emits later is the final word;
   * `--follow` prints the provisional one at once and a correction if the final one differs.
   */
  readonly onProvisional?: (record: CallRecord) => void;
  /**
   * Skip, without parsing, lines that no rule of the table can match. Faster on traces full of
   * text and reasoning lines, but a malformed line that holds none of the table's words is then
   * skipped without being counted as malformed. Off by default, so every malformed line counts.
   */
  readonly skipUnmatchedLines?: boolean;
}
