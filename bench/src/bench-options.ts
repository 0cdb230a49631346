import { parseArgs } from 'node:util';
import { type FleetCommandsOptions } from './fleet-commands.ts';
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
  /** Windows of row 5, the Redis store's command rate. */
  readonly fleet: FleetCommandsOptions;
  /** Runs only this row, prints it and writes nothing (`--only fleet`). */
  readonly only: BenchRow | undefined;
}

/** The rows `--only` can pick. */
export const benchRows = ['fleet'] as const;
export type BenchRow = (typeof benchRows)[number];

/** The usage line printed with `--help` and with a bad option. */
export const usage = `usage: pnpm bench [--quick] [--only ${benchRows.join('|')}]`;

/** Thrown for a command line the bench does not understand; its message is for the user. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Reads the bench's command line. The full run is the default; `--quick` is CI's smoke run,
 * which keeps every row alive in well under a minute.
 */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  let values: { quick?: boolean; help?: boolean; only?: string };
  // `pnpm bench --quick` reaches us as `-- --quick`: the root script forwards with `--`.
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  try {
    ({ values } = parseArgs({
      args,
      options: {
        quick: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        only: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error: unknown) {
    throw new UsageError(
      `${error instanceof Error ? error.message : String(error)}\n${usage}`,
    );
  }
  const only = values.only;
  if (only !== undefined && !benchRows.some((row) => row === only)) {
    throw new UsageError(
      `--only takes one of ${benchRows.join(', ')}, got "${only}"\n${usage}`,
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
    // Slower rates get longer windows, so each counts enough calls (and beats).
    fleet: quick
      ? { idleMs: 3_500, windowMs: { 10: 2_000, 100: 1_000, 1_000: 1_000 } }
      : { idleMs: 10_000, windowMs: { 10: 10_000, 100: 5_000, 1_000: 3_000 } },
    only: only as BenchRow | undefined,
  };
}
