import type { Attempt } from './attempt.ts';
import type { AttemptRecord } from './attempt-record.ts';
import type { TestServerLogger } from './test-server-logger.ts';

/** Every request in arrival order, with waiters for requests still to come. */
export class AttemptJournal {
  readonly #entries: AttemptRecord[] = [];
  readonly #waiters = new Map<number, (() => void)[]>();
  readonly #logger: TestServerLogger;

  constructor(logger: TestServerLogger) {
    this.#logger = logger;
  }

  get entries(): readonly Attempt[] {
    return this.#entries;
  }

  /** The number the next request gets (1-based). */
  get nextNumber(): number {
    return this.#entries.length + 1;
  }

  /**
   * Resolves with the `n`th request (1-based) once it has been matched. A scripted delay or
   * stall has been armed by then, so the test can act on it at once.
   */
  waitForAttempt(n: number): Promise<Attempt> {
    const existing = this.#entries[n - 1];
    if (existing !== undefined) {
      return Promise.resolve(existing);
    }
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(n) ?? [];
      waiters.push(() => {
        const attempt = this.#entries[n - 1];
        if (attempt !== undefined) {
          resolve(attempt);
        }
      });
      this.#waiters.set(n, waiters);
    });
  }

  /** Throws, listing them, if any request matched no step. */
  assertNoUnmatched(): void {
    const unmatched = this.#entries.filter(
      (entry) => entry.disposition === 'unmatched',
    );
    if (unmatched.length > 0) {
      throw new Error(
        `${unmatched.length} request(s) matched no scripted step:\n${unmatched
          .map(
            (entry) =>
              `  #${entry.number} ${entry.method} ${entry.path}: ${entry.reason ?? ''}`,
          )
          .join('\n')}`,
      );
    }
  }

  /** Publishes a request and wakes whoever waits for its number. */
  record(record: AttemptRecord): void {
    this.#entries.push(record);
    this.#logger.debug(
      {
        attempt: record.number,
        disposition: record.disposition,
        conversation: record.conversation,
        step: record.step,
        reason: record.reason,
      },
      'llm test server: request',
    );
    if (record.disposition !== 'matched') {
      this.#logger.warn(
        { attempt: record.number, path: record.path, reason: record.reason },
        `llm test server: ${record.disposition} request`,
      );
    }
    const waiters = this.#waiters.get(record.number);
    this.#waiters.delete(record.number);
    for (const waiter of waiters ?? []) {
      waiter();
    }
  }
}
