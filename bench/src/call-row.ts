/**
 * `pnpm --filter @candor/bench bench:call [--quick]`: row 1 alone (one tool call through each
 * layer), with the timing of the full or the quick run. For profiling and checking a change to
 * the call path without the minutes of the other rows; prints, writes nothing.
 */
import { parseBenchOptions, UsageError } from './bench-options.ts';
import { callTask, measureCallOverhead } from './call-overhead.ts';
import { formatDuration, formatRatio } from './format-table.ts';
import { pairedRatio, type TaskTiming } from './measure-tasks.ts';

function byName(timings: readonly TaskTiming[], name: string): TaskTiming {
  const found = timings.find((task) => task.name === name);
  if (found === undefined) throw new Error(`row 1 has no task "${name}"`);
  return found;
}

async function main(argv: readonly string[]): Promise<number> {
  let options;
  try {
    options = parseBenchOptions(argv);
  } catch (error: unknown) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const timings = (await measureCallOverhead(options.timing)).timings;
  const opossum = byName(timings, callTask.opossum);
  for (const task of timings) {
    process.stdout.write(
      `${task.name.padEnd(40)} ${formatDuration(task.meanNs).padStart(10)}  ${formatRatio(pairedRatio(task, opossum))} bare opossum fire()\n`,
    );
  }
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error: unknown) {
  process.stderr.write(
    `bench:call failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
}
