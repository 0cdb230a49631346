/**
 * Row 4 alone: `pnpm --filter @candor/bench bench:traces` (`--quick` for a 4 MB smoke run). The
 * same measurement as the full `pnpm bench` row, printed as one line per figure; it writes
 * nothing, so the normaliser can be tuned without running the other rows.
 */
import { loadavg } from 'node:os';
import { measureTraces } from './trace-row.ts';

const quick = process.argv.includes('--quick');
const bytes = quick ? 4_000_000 : 100_000_000;
const rounds = quick ? 1 : 3;
const row = await measureTraces(bytes, rounds);
const mbPerSecond = (run: { bytes: number; cpuSeconds: number }): string =>
  (run.bytes / 1e6 / run.cpuSeconds).toFixed(1);
process.stdout.write(
  [
    `trace: ${String(row.corpus.lines)} lines, ${String(row.corpus.calls)} calls, ${(row.corpus.bytes / 1e6).toFixed(1)} MB; load ${(loadavg()[0] ?? 0).toFixed(2)}`,
    `JSON.parse per line: ${mbPerSecond(row.jsonParse)} MB/s CPU`,
    `readTrace:           ${mbPerSecond(row.normaliser)} MB/s CPU`,
    `throughput ratio (median of ${String(rounds)} rounds): ${row.throughputRatio.toFixed(2)}×`,
    `peak RSS full ÷ quarter: ${(row.normaliser.peakRssBytes / row.normaliserQuarter.peakRssBytes).toFixed(2)}`,
    // For reference: the baseline keeps nothing, so its own growth is V8's heap sizing alone.
    `JSON.parse peak RSS full ÷ quarter (reference): ${(row.jsonParse.peakRssBytes / row.jsonParseQuarter.peakRssBytes).toFixed(2)}`,
    '',
  ].join('\n'),
);
