import { type ToolErrorCode } from '@candor/errors';
import { type ToolOutcome } from '@candor/tools';

/** Limits that stop a loop that only fails. */
export interface ErrorBudgetOptions {
  /** Error outcomes in the whole run. Default 5. */
  readonly maxErrors?: number;
  /** Error outcomes in a row, with no success or partial between them. Default 3. */
  readonly maxConsecutiveErrors?: number;
  /** The same tool, arguments and code failing this many times. Default 2. */
  readonly maxRepeatedFailures?: number;
}

/** One failed call the budget remembers, for the run's result. */
export interface RecordedError {
  /** The tool that failed. */
  readonly toolName: string;
  /** The failed call's id. */
  readonly callId: string;
  /** The error code the call ended with. */
  readonly code: ToolErrorCode;
  /** The error message the call ended with. */
  readonly message: string;
}

/** Why the budget ran out. */
export type BudgetExhaustion =
  'max_errors' | 'max_consecutive_errors' | 'repeated_failure';

function limit(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(
      `errorBudget.${name} must be an integer of at least 1, got ${String(value)}`,
    );
  }
  return value;
}

/** Canonical JSON, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same arguments. */
function canonical(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), (_key, value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.fromEntries(
            Object.entries(value).sort(([a], [b]) => a.localeCompare(b)),
          )
        : value,
    );
  } catch {
    return args;
  }
}

/**
 * Counts error outcomes of a run. Only errors count: denied and partial never do, and a success
 * or partial ends a run of consecutive errors.
 */
export class ErrorBudget {
  readonly #maxErrors: number;
  readonly #maxConsecutive: number;
  readonly #maxRepeated: number;
  readonly #repeats = new Map<string, number>();
  readonly #errors: RecordedError[] = [];
  #consecutive = 0;
  #exhausted: BudgetExhaustion | undefined;

  constructor(options: ErrorBudgetOptions = {}) {
    this.#maxErrors = limit('maxErrors', options.maxErrors, 5);
    this.#maxConsecutive = limit(
      'maxConsecutiveErrors',
      options.maxConsecutiveErrors,
      3,
    );
    this.#maxRepeated = limit(
      'maxRepeatedFailures',
      options.maxRepeatedFailures,
      2,
    );
  }

  /** Records one call's outcome; returns why the budget is exhausted, if it now is. */
  record(entry: {
    outcome: ToolOutcome;
    toolName: string;
    callId: string;
    arguments: string;
    code?: ToolErrorCode;
    message?: string;
  }): BudgetExhaustion | undefined {
    if (entry.outcome === 'success' || entry.outcome === 'partial')
      this.#consecutive = 0;
    if (entry.outcome !== 'error' || entry.code === undefined)
      return this.#exhausted;
    this.#errors.push({
      toolName: entry.toolName,
      callId: entry.callId,
      code: entry.code,
      message: entry.message ?? '',
    });
    this.#consecutive += 1;
    const key = `${entry.toolName}\u0000${canonical(entry.arguments)}\u0000${entry.code}`;
    const repeats = (this.#repeats.get(key) ?? 0) + 1;
    this.#repeats.set(key, repeats);
    this.#exhausted ??=
      repeats >= this.#maxRepeated
        ? 'repeated_failure'
        : this.#consecutive >= this.#maxConsecutive
          ? 'max_consecutive_errors'
          : this.#errors.length >= this.#maxErrors
            ? 'max_errors'
            : undefined;
    return this.#exhausted;
  }

  /** Why the budget is exhausted, or `undefined` while calls may go on. */
  get exhausted(): BudgetExhaustion | undefined {
    return this.#exhausted;
  }

  /** The most recent errors, newest last. */
  lastErrors(count = 5): RecordedError[] {
    return this.#errors.slice(-count);
  }
}
