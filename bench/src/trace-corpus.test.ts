import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTrace } from '@candor/traces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTraceCorpus } from './trace-corpus.ts';

describe('writeTraceCorpus', () => {
  let folder = '';
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'candor-bench-test-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('writes at least the size asked for, and counts what it wrote', async () => {
    const corpus = await writeTraceCorpus(join(folder, 'a.jsonl'), 50_000);
    expect(corpus.bytes).toBeGreaterThanOrEqual(50_000);
    expect((await stat(corpus.path)).size).toBe(corpus.bytes);
    const text = await readFile(corpus.path, 'utf8');
    expect(text.split('\n').filter((line) => line !== '')).toHaveLength(
      corpus.lines,
    );
    expect(corpus.lines).toBe(1 + 2 * corpus.calls);
  });

  it('writes the same bytes every time, so runs read the same trace', async () => {
    const first = await writeTraceCorpus(join(folder, 'b.jsonl'), 20_000);
    const second = await writeTraceCorpus(join(folder, 'c.jsonl'), 20_000);
    expect(await readFile(second.path, 'utf8')).toBe(
      await readFile(first.path, 'utf8'),
    );
  });

  it('is read by the traces package as Claude Code, one record per call', async () => {
    const corpus = await writeTraceCorpus(join(folder, 'd.jsonl'), 30_000);
    const trace = readTrace(createReadStream(corpus.path));
    const outcomes: string[] = [];
    for await (const record of trace) outcomes.push(record.outcome);
    expect(trace.summary.harness).toBe('claude-code');
    expect(outcomes).toHaveLength(corpus.calls);
    expect(outcomes.filter((outcome) => outcome === 'error')).toHaveLength(
      corpus.errors,
    );
    expect(corpus.errors).toBeGreaterThan(0);
    expect(trace.summary.malformed).toBe(0);
  });

  it('refuses a size below one byte', async () => {
    await expect(writeTraceCorpus(join(folder, 'e.jsonl'), 0)).rejects.toThrow(
      'minBytes must be at least 1, got 0',
    );
  });
});
