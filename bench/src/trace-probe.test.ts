import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runChild } from './run-child.ts';
import { writeTraceCorpus } from './trace-corpus.ts';

const folder = await mkdtemp(join(tmpdir(), 'candor-trace-probe-'));
afterAll(() => rm(folder, { recursive: true, force: true }));

describe('trace-probe', () => {
  it('reports its own peak RSS, not the size of the process that started it', async () => {
    const corpus = await writeTraceCorpus(join(folder, 't.jsonl'), 20_000);
    // Touched, so it is resident: the probe is then forked from a process 300 MB larger.
    const ballast = Buffer.alloc(300e6, 1);
    const parentRss = process.memoryUsage().rss;
    const result = (await runChild({
      script: './trace-probe.ts',
      args: ['normaliser', corpus.path],
      timeoutMs: 60_000,
      plainNode: true,
    })) as { peakRssBytes: number; items: number };
    expect(result.items).toBe(corpus.calls);
    expect(parentRss).toBeGreaterThan(300e6);
    // A Node process reading 20 kB takes well under 200 MB; the parent holds more than 300.
    expect(result.peakRssBytes).toBeGreaterThan(10e6);
    expect(result.peakRssBytes).toBeLessThan(200e6);
    // Read after the probe ended, so the ballast stayed alive throughout.
    expect(ballast.at(-1)).toBe(1);
  });
});
