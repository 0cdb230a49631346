/** What became of one check. */
export const CheckOutcome = {
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped',
} as const;

/** `passed`, `failed` or `skipped`. */
export type CheckOutcome = (typeof CheckOutcome)[keyof typeof CheckOutcome];

/** One line of the report. */
export interface CheckRecord {
  readonly name: string;
  readonly outcome: CheckOutcome;
  /** Why it failed or was skipped, or a short note on what passed. */
  readonly detail?: string;
}

/** Thrown by {@link CheckList.require} after recording the failure, so later steps do not run. */
export class RunAborted extends Error {
  override readonly name = 'RunAborted';
}

const MARK = { passed: '✓', failed: '✗', skipped: '-' } as const;

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function elapsed(started: number): string {
  return `${((performance.now() - started) / 1000).toFixed(1)}s`;
}

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n');
}

/**
 * The install test's checks: each is printed as it ends, and the last line counts them in the
 * `N passed, M failed` form CI reads.
 */
export class CheckList {
  readonly #records: CheckRecord[] = [];
  readonly #write: (line: string) => void;

  constructor(write: (line: string) => void) {
    this.#write = write;
  }

  /** Everything recorded so far, in order. */
  get records(): readonly CheckRecord[] {
    return this.#records;
  }

  /** How many checks failed. */
  get failures(): number {
    return this.#count(CheckOutcome.failed);
  }

  /** Records a check with the problems it found: none means it passed. */
  expect(name: string, problems: readonly string[], note?: string): boolean {
    if (problems.length === 0) {
      this.#add(
        note === undefined
          ? { name, outcome: CheckOutcome.passed }
          : { name, outcome: CheckOutcome.passed, detail: note },
      );
      return true;
    }
    this.#add({
      name,
      outcome: CheckOutcome.failed,
      detail: problems.join('\n'),
    });
    return false;
  }

  /** Records a check that could not run, and why. */
  skip(name: string, reason: string): void {
    this.#add({ name, outcome: CheckOutcome.skipped, detail: reason });
  }

  /**
   * Runs a step later steps need. Its result is returned; if it throws, the failure is recorded
   * and {@link RunAborted} is thrown instead.
   */
  async require<T>(
    name: string,
    run: () => Promise<T>,
    note?: (result: T) => string,
  ): Promise<T> {
    const started = performance.now();
    let result: T;
    try {
      result = await run();
    } catch (error: unknown) {
      this.expect(name, [describeError(error)]);
      throw new RunAborted(`${name} failed`);
    }
    const said = note?.(result);
    this.expect(
      name,
      [],
      said === undefined ? elapsed(started) : `${said}, ${elapsed(started)}`,
    );
    return result;
  }

  /** Runs a check that returns its problems; a throw counts as one problem. */
  async check(
    name: string,
    run: () => Promise<readonly string[]>,
  ): Promise<boolean> {
    const started = performance.now();
    let problems: readonly string[];
    try {
      problems = await run();
    } catch (error: unknown) {
      problems = [describeError(error)];
    }
    return this.expect(name, problems, elapsed(started));
  }

  /** `install-test: N passed, M failed`, with `, K skipped` when any were. */
  summary(): string {
    const skipped = this.#count(CheckOutcome.skipped);
    return `install-test: ${this.#count(CheckOutcome.passed)} passed, ${this.failures} failed${
      skipped > 0 ? `, ${skipped} skipped` : ''
    }`;
  }

  #count(outcome: CheckOutcome): number {
    return this.#records.filter((record) => record.outcome === outcome).length;
  }

  #add(record: CheckRecord): void {
    this.#records.push(record);
    const detail =
      record.detail === undefined
        ? ''
        : record.outcome === CheckOutcome.passed
          ? ` (${record.detail})`
          : `\n${indent(record.detail)}`;
    this.#write(`  ${MARK[record.outcome]} ${record.name}${detail}`);
  }
}
