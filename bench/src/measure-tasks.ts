import { measure } from 'mitata';

/** One function to time. It must do the whole operation, awaiting it when it is async. */
export interface BenchTask {
  readonly name: string;
  readonly run: () => unknown;
}

/** How long and how often to measure. */
export interface MeasureOptions {
  /** Rounds over all tasks; each task's figure is the median of its rounds. */
  readonly rounds: number;
  /** CPU time each task gets per round, in milliseconds. */
  readonly minCpuTimeMs: number;
  /** Calls per timed batch of a fast task (mitata's `batch_samples`). */
  readonly batchSamples: number;
  /** Samples per task and round, however long they take (mitata's `min_samples`). */
  readonly minSamples: number;
}

/**
 * The process's CPU time (user + system, every thread) in nanoseconds. On a shared machine other
 * processes steal wall-clock time at random; CPU time counts only the work this process did,
 * its garbage collection included.
 */
export function cpuTimeNs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

/** One task's time per operation. */
export interface TaskTiming {
  readonly name: string;
  /** Mean time per operation in nanoseconds: the median, over the rounds, of each round's mean. */
  readonly meanNs: number;
  /** The per-round means, for the record. */
  readonly roundsNs: readonly number[];
  /** Operations timed over all rounds. */
  readonly operations: number;
}

const WARM_UP_CALLS = 200;

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  if (sorted.length % 2 === 1) return upper;
  return ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
}

/**
 * How many times slower `task` is than `baseline`: the median of the per-round ratios. Pairing
 * the two within each round cancels noise that lasts longer than a round.
 */
export function pairedRatio(task: TaskTiming, baseline: TaskTiming): number {
  if (task.roundsNs.length !== baseline.roundsNs.length) {
    throw new RangeError(
      `"${task.name}" has ${task.roundsNs.length} rounds and "${baseline.name}" ${baseline.roundsNs.length}: only timings of the same run can be compared`,
    );
  }
  return median(
    task.roundsNs.map(
      (ns, round) => ns / (baseline.roundsNs[round] ?? Number.NaN),
    ),
  );
}

/**
 * Times every task with mitata, which batches fast functions so the clock's own cost does not
 * swamp them. Tasks are interleaved round by round, so a burst of noise on a shared machine
 * hits every task alike instead of one of them. Time is CPU time ({@link cpuTimeNs}), so it
 * includes the garbage collection a task causes, which is part of its cost.
 */
export async function measureTasks(
  tasks: readonly BenchTask[],
  options: MeasureOptions,
): Promise<TaskTiming[]> {
  if (!Number.isInteger(options.rounds) || options.rounds < 1) {
    throw new RangeError(
      `rounds must be a positive integer, got ${String(options.rounds)}`,
    );
  }
  const perTask = tasks.map(() => ({ means: [] as number[], operations: 0 }));
  // mitata decides from the first call whether to batch; a cold first call (lazy set-up, no JIT
  // yet) would make it time calls one by one, so every task is warmed up first.
  for (const task of tasks) {
    for (let call = 0; call < WARM_UP_CALLS; call++) await task.run();
  }
  for (let round = 0; round < options.rounds; round++) {
    // Every other round runs backwards: a task never always follows the same one (and collects
    // its garbage), which on a shared machine skewed the quick run's two-round ratios.
    const order = [...tasks.entries()];
    if (round % 2 === 1) order.reverse();
    for (const [index, task] of order) {
      const stats = await measure(task.run, {
        min_cpu_time: options.minCpuTimeMs * 1e6,
        batch_samples: options.batchSamples,
        min_samples: options.minSamples,
        now: cpuTimeNs,
      });
      const entry = perTask[index];
      if (entry === undefined) continue;
      entry.means.push(stats.avg);
      entry.operations += stats.ticks;
    }
  }
  return tasks.map((task, index) => {
    const entry = perTask[index] ?? { means: [], operations: 0 };
    return {
      name: task.name,
      meanNs: median(entry.means),
      roundsNs: entry.means,
      operations: entry.operations,
    };
  });
}
