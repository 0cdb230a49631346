import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { median } from './measure-tasks.ts';
import { runChild } from './run-child.ts';
import { type TraceCorpus, writeTraceCorpus } from './trace-corpus.ts';

const probeResult = z.object({
  subject: z.enum(['json-parse', 'normaliser']),
  bytes: z.number().int(),
  seconds: z.number().positive(),
  cpuSeconds: z.number().positive(),
  lines: z.number().int(),
  items: z.number().int(),
  errors: z.number().int(),
  peakRssBytes: z.number().int(),
});

/** One reading of one trace, in a process of its own. */
export type TraceMeasurement = z.infer<typeof probeResult>;

/** Row 4: the normaliser against `JSON.parse` per line. */
export interface TraceRow {
  readonly corpus: TraceCorpus;
  /** The baseline's round with the median CPU time. */
  readonly jsonParse: TraceMeasurement;
  /** The normaliser's round with the median CPU time. */
  readonly normaliser: TraceMeasurement;
  /** Normaliser throughput ÷ baseline throughput: the median of the per-round ratios. */
  readonly throughputRatio: number;
  readonly rounds: number;
  /** The normaliser on a quarter-size trace: its peak RSS shows whether memory grows with size. */
  readonly normaliserQuarter: TraceMeasurement;
  /**
   * The baseline on the quarter-size trace. It keeps nothing between lines, so its own peak RSS,
   * full ÷ quarter, is what V8's heap sizing alone adds as a process reads more: for reference
   * beside the normaliser's.
   */
  readonly jsonParseQuarter: TraceMeasurement;
  readonly quarterCorpus: TraceCorpus;
}

async function probe(
  subject: 'json-parse' | 'normaliser',
  corpus: TraceCorpus,
): Promise<TraceMeasurement> {
  const output = await runChild({
    script: './trace-probe.ts',
    args: [subject, corpus.path],
    timeoutMs: 10 * 60_000,
    plainNode: true,
  });
  const parsed = probeResult.safeParse(output);
  if (!parsed.success) {
    throw new Error(
      `trace-probe ${subject} printed an unexpected result: ${z.prettifyError(parsed.error)}`,
    );
  }
  const result = parsed.data;
  // A fast reader that skipped lines or lost calls would win for the wrong reason.
  const expectedItems = subject === 'normaliser' ? corpus.calls : corpus.lines;
  if (result.lines !== corpus.lines || result.items !== expectedItems) {
    throw new Error(
      `trace-probe ${subject} read ${String(result.lines)} lines and ${String(result.items)} items; the trace has ${String(corpus.lines)} lines and ${String(expectedItems)} items`,
    );
  }
  if (subject === 'normaliser' && result.errors !== corpus.errors) {
    throw new Error(
      `the normaliser found ${String(result.errors)} failed calls; the trace has ${String(corpus.errors)}`,
    );
  }
  return result;
}

function medianRun(runs: readonly TraceMeasurement[]): TraceMeasurement {
  const sorted = [...runs].sort((a, b) => a.cpuSeconds - b.cpuSeconds);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (middle === undefined) throw new RangeError('no trace measurement');
  return middle;
}

/**
 * Writes the traces to a temporary folder, reads them, and removes them whatever happens. The
 * baseline and the normaliser take turns, `rounds` times, so a slow spell of the machine hits a
 * pair rather than one side.
 */
export async function measureTraces(
  bytes: number,
  rounds: number,
): Promise<TraceRow> {
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new RangeError(
      `rounds must be a positive integer, got ${String(rounds)}`,
    );
  }
  const folder = await mkdtemp(join(tmpdir(), 'candor-bench-'));
  try {
    const corpus = await writeTraceCorpus(join(folder, 'trace.jsonl'), bytes);
    const quarterCorpus = await writeTraceCorpus(
      join(folder, 'quarter.jsonl'),
      Math.ceil(bytes / 4),
    );
    const baselines: TraceMeasurement[] = [];
    const normalisers: TraceMeasurement[] = [];
    for (let round = 0; round < rounds; round++) {
      baselines.push(await probe('json-parse', corpus));
      normalisers.push(await probe('normaliser', corpus));
    }
    const normaliserQuarter = await probe('normaliser', quarterCorpus);
    const jsonParseQuarter = await probe('json-parse', quarterCorpus);
    return {
      corpus,
      jsonParse: medianRun(baselines),
      normaliser: medianRun(normalisers),
      throughputRatio: median(
        normalisers.map(
          (run, round) =>
            (baselines[round]?.cpuSeconds ?? Number.NaN) / run.cpuSeconds,
        ),
      ),
      rounds,
      normaliserQuarter,
      jsonParseQuarter,
      quarterCorpus,
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
