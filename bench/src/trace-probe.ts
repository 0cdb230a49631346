/**
 * A child process that reads one JSONL file and prints one JSON line: its time and its peak
 * RSS, which only a process of its own can report.
 *
 * Usage: trace-probe.ts <json-parse|normaliser> <file>
 *
 * The bench runs it in plain Node (compiled first; see runChild's `plainNode`), so a peak RSS
 * is the reader's and Node's, not tsx's loader's.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { readTrace } from '@candor/traces';

/** What a probe reports. */
export interface TraceProbeResult {
  readonly subject: 'json-parse' | 'normaliser';
  readonly bytes: number;
  /** Wall-clock time, for information. */
  readonly seconds: number;
  /** CPU time (user + system): what the throughput ratio is judged on, as other processes on a shared machine do not inflate it. */
  readonly cpuSeconds: number;
  readonly lines: number;
  /** Call records emitted (normaliser), or JSON objects parsed (baseline). */
  readonly items: number;
  /** Normaliser only: calls whose outcome is error. */
  readonly errors: number;
  readonly peakRssBytes: number;
}

// The baseline reads lines exactly as readTrace does, so only the per-line work differs.
const decodePiece = 16 * 1024;
async function jsonParseEveryLine(
  file: string,
): Promise<{ lines: number; items: number }> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let lines = 0;
  let items = 0;
  const take = (line: string): void => {
    lines += 1;
    if (line === '') return;
    const value: unknown = JSON.parse(line);
    if (typeof value === 'object' && value !== null) items += 1;
  };
  for await (const chunk of createReadStream(file)) {
    const bytes = chunk as Buffer;
    // Decoded a piece at a time, as readTrace does (see its decodePiece).
    for (let at = 0; at < bytes.length; at += decodePiece) {
      const text = rest + decoder.write(bytes.subarray(at, at + decodePiece));
      let start = 0;
      let newline = text.indexOf('\n', start);
      while (newline !== -1) {
        const end =
          newline > start && text.charCodeAt(newline - 1) === 13
            ? newline - 1
            : newline;
        take(text.slice(start, end));
        start = newline + 1;
        newline = text.indexOf('\n', start);
      }
      rest = text.slice(start);
    }
  }
  rest += decoder.end();
  if (rest !== '') take(rest);
  return { lines, items };
}

async function normaliseEveryLine(
  file: string,
): Promise<{ lines: number; items: number; errors: number }> {
  const trace = readTrace(createReadStream(file));
  let items = 0;
  let errors = 0;
  for await (const record of trace) {
    items += 1;
    if (record.outcome === 'error') errors += 1;
  }
  return { lines: trace.summary.lines, items, errors };
}

// This process's own peak RSS. getrusage's maxRSS will not do on Linux: it also counts the
// parent's RSS at the fork that started this process (the kernel keeps it across exec), so a
// probe started by the full bench reported the bench's own size. VmHWM is the high-water mark of
// this process's memory since exec.
function peakRssBytes(): number {
  let status = '';
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    // Not Linux: maxRSS is the best there is.
  }
  const kilobytes = /^VmHWM:\s+(\d+) kB$/mu.exec(status)?.[1];
  return (
    (kilobytes === undefined
      ? process.resourceUsage().maxRSS
      : Number(kilobytes)) * 1024
  );
}

async function main(argv: readonly string[]): Promise<void> {
  const [subject, file] = argv;
  if (file === undefined || file === '')
    throw new RangeError('trace-probe needs a file');
  const { size } = await stat(file);
  if (subject !== 'json-parse' && subject !== 'normaliser') {
    throw new RangeError(
      `subject must be json-parse or normaliser, got ${String(subject)}`,
    );
  }
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const counted =
    subject === 'json-parse'
      ? { ...(await jsonParseEveryLine(file)), errors: 0 }
      : await normaliseEveryLine(file);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const result: TraceProbeResult = {
    subject,
    bytes: size,
    seconds,
    cpuSeconds,
    ...counted,
    peakRssBytes: peakRssBytes(),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main(process.argv.slice(2));
