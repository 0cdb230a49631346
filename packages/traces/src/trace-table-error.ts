/** One problem in a table file: the field it concerns and what is wrong with it. */
export interface TraceTableProblem {
  /** The field, written like `rules[2].status.map`; empty for the whole file. */
  readonly field: string;
  readonly message: string;
}

/**
 * A table file could not be read or does not describe a usable harness. The message names the
 * file and every offending field, so it can be shown to a person as is.
 */
export class TraceTableError extends Error {
  /** The file (or label) the table came from. */
  readonly source: string;
  readonly problems: readonly TraceTableProblem[];

  constructor(options: {
    source: string;
    problems: readonly TraceTableProblem[];
    cause?: unknown;
  }) {
    const lines = options.problems.map((problem) =>
      problem.field === ''
        ? `${options.source}: ${problem.message}`
        : `${options.source}: ${problem.field}: ${problem.message}`,
    );
    super(lines.join('\n'), { cause: options.cause });
    this.name = new.target.name;
    this.source = options.source;
    this.problems = options.problems;
  }
}
