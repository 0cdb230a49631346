import { parseArgs } from 'node:util';
import { type MeasureOptions } from './measure-tasks.ts';

/** Everything a run needs to know, from the command line. */
export interface BenchOptions {
  /** The smoke run of CI: small sizes, short timings, nothing written to docs/. */
  readonly quick: boolean;
  readonly help: boolean;
  /** Row 1 and the telemetry row. */
  readonly timing: MeasureOptions;
  /**
   * Row 2, whose runs take milliseconds: a time floor alone gave each round a handful of runs in
   * the quick run, so one garbage collection decided its ratio. It gets a floor of runs instead.
   */
  readonly agentTiming: MeasureOptions;
  /**
   * Row 2b, whose two sides differ by about 1 %: a single round moves by about ±10 %, so the full
   * run takes more rounds for a median that a goal of ≤ 1.05× can be judged on.
   */
  readonly tracingTiming: MeasureOptions;
  /** Tools registered (Candor) and breakers created (opossum) in row 3. */
  readonly memoryTools: number;
  /** Size of the large trace of row 4; a quarter-size trace shows whether memory stays flat. */
  readonly traceBytes: number;
  /** Turns of baseline and normaliser on the large trace. */
  readonly traceRounds: number;
}

/** The usage line printed with `--help` and with a bad option. */
export const usage = 'usage: pnpm bench [--quick]';

/** Thrown for a command line the bench does not understand; its message is for the user. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Reads the bench's command line. The full run is the default; `--quick` is CI's smoke run,
 * which keeps every row alive in well under a minute.
 */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  let values: { quick?: boolean; help?: boolean };
  // `pnpm bench --quick` reaches us as `-- --quick`: the root script forwards with `--`.
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  try {
    ({ values } = parseArgs({
      args,
      options: {
        quick: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error: unknown) {
    throw new UsageError(
      `${error instanceof Error ? error.message : String(error)}\n${usage}`,
    );
  }
  const quick = values.quick === true;
  return {
    quick,
    help: values.help === true,
    timing: quick
      ? { rounds: 2, minCpuTimeMs: 30, batchSamples: 64, minSamples: 4 }
      : { rounds: 7, minCpuTimeMs: 300, batchSamples: 1024, minSamples: 12 },
    agentTiming: quick
      ? { rounds: 5, minCpuTimeMs: 30, batchSamples: 64, minSamples: 20 }
      : { rounds: 7, minCpuTimeMs: 300, batchSamples: 1024, minSamples: 12 },
    tracingTiming: quick
      ? { rounds: 2, minCpuTimeMs: 30, batchSamples: 64, minSamples: 4 }
      : { rounds: 15, minCpuTimeMs: 300, batchSamples: 1024, minSamples: 12 },
    memoryTools: quick ? 1_000 : 10_000,
    traceBytes: quick ? 4_000_000 : 100_000_000,
    traceRounds: quick ? 1 : 3,
  };
}
