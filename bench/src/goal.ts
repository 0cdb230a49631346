/** A goal of the issue, judged on a number measured in this run. */
export interface Goal {
  /** What is compared, in words, such as `registry.call ÷ bare opossum fire()`. */
  readonly label: string;
  /** `at-most`: the value must not exceed the limit; `at-least`: it must reach it. */
  readonly direction: 'at-most' | 'at-least';
  readonly limit: number;
  /** Printed after the numbers: `×` for ratios, ` MB`, ` timers`. */
  readonly unit: string;
}

/** A goal with the value measured in this run. */
export interface GoalVerdict extends Goal {
  readonly value: number;
  readonly met: boolean;
}

/**
 * Judges a value measured in this run against its goal. Goals are reported, never asserted: a
 * shared machine is too noisy for a timing goal to fail a build.
 */
export function judgeGoal(goal: Goal, value: number): GoalVerdict {
  if (!Number.isFinite(value)) {
    throw new RangeError(
      `The value for "${goal.label}" must be a finite number, got ${String(value)}`,
    );
  }
  const met =
    goal.direction === 'at-most' ? value <= goal.limit : value >= goal.limit;
  return { ...goal, value, met };
}

/** The goal's limit in words, such as `≤ 1.5×` or `≤ 5 MB`. */
export function describeLimit(goal: Goal): string {
  return `${goal.direction === 'at-most' ? '≤' : '≥'} ${goal.limit}${goal.unit}`;
}
