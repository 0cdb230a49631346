/**
 * `pnpm --filter @candor/bench bench:responses` (`--quick` for a smoke run): the OpenAI
 * Responses wire (`openaiResponses(...).stream()`: SSE parsing, the event parser, the retry
 * loop) reading a generated ~10 MB Responses stream, against splitting the same stream's frames
 * and `JSON.parse`-ing each. Both read the same in-memory chunks through a `Response` body, so
 * only the work per frame differs; the wire's `fetch` is answered in memory, no socket. Goal: at
 * least 0.5× the baseline's throughput, judged on CPU time, the median of per-round ratios.
 */
import { parseArgs } from 'node:util';
import { openaiResponses } from '@candor/core';
import { describeLimit, judgeGoal } from './goal.ts';
import { median } from './measure-tasks.ts';
import { type ResponsesCorpus, responsesCorpus } from './responses-corpus.ts';

const GOAL = {
  label: 'openaiResponses stream ÷ frame split + JSON.parse throughput',
  direction: 'at-least',
  limit: 0.5,
  unit: '×',
} as const;

function body(corpus: ResponsesCorpus): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = corpus.chunks[next];
      next += 1;
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

function response(corpus: ResponsesCorpus): Response {
  return new Response(body(corpus), {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
  });
}

/** The baseline: frames split on blank lines, each frame's data line parsed. */
async function splitAndParse(corpus: ResponsesCorpus): Promise<number> {
  const decoder = new TextDecoder();
  let rest = '';
  let frames = 0;
  const take = (frame: string): void => {
    const at = frame.indexOf('data: ');
    if (at === -1) return;
    const value: unknown = JSON.parse(frame.slice(at + 6));
    if (typeof value === 'object' && value !== null) frames += 1;
  };
  const stream = response(corpus).body;
  if (stream === null) throw new Error('no body');
  for await (const chunk of stream as AsyncIterable<Uint8Array>) {
    const text = rest + decoder.decode(chunk, { stream: true });
    let start = 0;
    let end = text.indexOf('\n\n', start);
    while (end !== -1) {
      take(text.slice(start, end));
      start = end + 2;
      end = text.indexOf('\n\n', start);
    }
    rest = text.slice(start);
  }
  rest += decoder.decode();
  if (rest.trim() !== '') take(rest);
  return frames;
}

interface WireCounts {
  reasoningDeltas: number;
  textDeltas: number;
  calls: number;
  finishes: number;
}

/** Candor: the whole wire, its `fetch` answered with the corpus. */
async function throughWire(corpus: ResponsesCorpus): Promise<WireCounts> {
  const model = openaiResponses({
    apiKey: 'bench',
    model: 'gpt-5-mini',
    baseURL: 'http://bench.invalid/v1',
    maxRetries: 0,
  });
  const counts = { reasoningDeltas: 0, textDeltas: 0, calls: 0, finishes: 0 };
  const real = globalThis.fetch;
  globalThis.fetch = () => Promise.resolve(response(corpus));
  try {
    for await (const event of model.stream({
      messages: [{ role: 'user', content: 'What is 12 + 7?' }],
      tools: [],
    })) {
      if (event.type === 'reasoning-delta') counts.reasoningDeltas += 1;
      else if (event.type === 'text-delta') counts.textDeltas += 1;
      else if (event.type === 'tool-call') counts.calls += 1;
      else if (event.type === 'finish') counts.finishes += 1;
    }
  } finally {
    globalThis.fetch = real;
  }
  return counts;
}

function cpuMs<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = process.cpuUsage();
  return run().then((value) => {
    const used = process.cpuUsage(started);
    return { value, ms: (used.user + used.system) / 1000 };
  });
}

function check(corpus: ResponsesCorpus, frames: number, wire: WireCounts) {
  // A reader that skipped frames or lost events would win for the wrong reason.
  if (frames !== corpus.frames)
    throw new Error(
      `the baseline parsed ${String(frames)} frames; the stream has ${String(corpus.frames)}`,
    );
  const expected: WireCounts = {
    reasoningDeltas: corpus.reasoningDeltas,
    textDeltas: corpus.textDeltas,
    calls: corpus.calls,
    finishes: 1,
  };
  if (JSON.stringify(wire) !== JSON.stringify(expected))
    throw new Error(
      `the wire emitted ${JSON.stringify(wire)}; the stream holds ${JSON.stringify(expected)}`,
    );
}

async function main(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv[0] === '--' ? argv.slice(1) : [...argv],
    options: { quick: { type: 'boolean' } },
    strict: true,
  });
  const quick = values.quick === true;
  const corpus = responsesCorpus(quick ? 1_000_000 : 10_000_000);
  const rounds = quick ? 3 : 9;
  // One untimed turn each, so neither side is timed while it is still being compiled.
  check(corpus, await splitAndParse(corpus), await throughWire(corpus));
  const baseline: number[] = [];
  const wire: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternate which side goes first, so neither always follows (and collects the garbage of)
    // the other.
    const first = round % 2 === 0;
    if (!first) wire.push((await cpuMs(() => throughWire(corpus))).ms);
    const base = await cpuMs(() => splitAndParse(corpus));
    baseline.push(base.ms);
    if (first) wire.push((await cpuMs(() => throughWire(corpus))).ms);
  }
  const ratio = median(
    wire.map((ms, round) => (baseline[round] ?? Number.NaN) / ms),
  );
  const verdict = judgeGoal(GOAL, ratio);
  const mbps = (ms: number): string =>
    `${((corpus.bytes / 1e6 / ms) * 1000).toFixed(1)} MB/s`;
  const lines = [
    `Responses stream: ${(corpus.bytes / 1e6).toFixed(1)} MB, ${corpus.frames.toLocaleString('en')} frames (${corpus.textDeltas.toLocaleString('en')} text deltas, ${String(corpus.reasoningDeltas)} reasoning deltas, ${String(corpus.calls)} function calls), ${String(rounds)} rounds, CPU time`,
    '',
    '| reader | median CPU | throughput |',
    '| --- | ---: | ---: |',
    `| frame split + JSON.parse | ${median(baseline).toFixed(1)} ms | ${mbps(median(baseline))} |`,
    `| openaiResponses stream | ${median(wire).toFixed(1)} ms | ${mbps(median(wire))} |`,
    '',
    `${verdict.label}: ${ratio.toFixed(2)}× (goal ${describeLimit(verdict)}): ${verdict.met ? 'met' : 'NOT met'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

try {
  await main(process.argv.slice(2));
} catch (error: unknown) {
  process.stderr.write(
    `bench:responses failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
}
