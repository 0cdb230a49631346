import { describe, expect, it } from 'vitest';
import {
  measureTasks,
  median,
  pairedRatio,
  type TaskTiming,
} from './measure-tasks.ts';

function timing(name: string, roundsNs: number[]): TaskTiming {
  return { name, meanNs: median(roundsNs), roundsNs, operations: 1 };
}

describe('median', () => {
  it('takes the middle value, or the mean of the two middle values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('refuses an empty list', () => {
    expect(() => median([])).toThrow('median of an empty list');
  });
});

describe('pairedRatio', () => {
  it('compares each round with the same round of the baseline', () => {
    // Round 2 was slow for both; pairing cancels it, unlike a ratio of medians would not.
    const task = timing('task', [20, 200, 22]);
    const baseline = timing('baseline', [10, 100, 10]);
    expect(pairedRatio(task, baseline)).toBe(2);
  });

  it('refuses timings of different runs', () => {
    expect(() => pairedRatio(timing('a', [1, 2]), timing('b', [1]))).toThrow(
      /only timings of the same run can be compared/,
    );
  });
});

describe('measureTasks', () => {
  it('runs every task, in every round, and reports one mean per round', async () => {
    let calls = 0;
    const [result] = await measureTasks(
      [
        {
          name: 'count',
          run: () => {
            calls += 1;
          },
        },
      ],
      { rounds: 3, minCpuTimeMs: 1, batchSamples: 8, minSamples: 2 },
    );
    expect(result?.name).toBe('count');
    expect(result?.roundsNs).toHaveLength(3);
    expect(calls).toBeGreaterThanOrEqual(result?.operations ?? Number.NaN);
  });

  it('runs every other round in reverse, so no task always follows the same one', async () => {
    const runs: string[] = [];
    const task = (name: string) => ({
      name,
      run: () => {
        if (runs.at(-1) !== name) runs.push(name);
      },
    });
    await measureTasks([task('a'), task('b')], {
      rounds: 3,
      minCpuTimeMs: 1,
      batchSamples: 8,
      minSamples: 2,
    });
    // Warm-up a b, round 1 a b, round 2 b a, round 3 a b: neighbouring runs of a task merge.
    expect(runs).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
  });

  it('refuses a round count that is not a positive integer', async () => {
    await expect(
      measureTasks([], {
        rounds: 0,
        minCpuTimeMs: 1,
        batchSamples: 8,
        minSamples: 2,
      }),
    ).rejects.toThrow('rounds must be a positive integer, got 0');
  });
});
