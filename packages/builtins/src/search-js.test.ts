import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool, codeOf, temporaryRoot } from './__fixtures__/call-tool.ts';
import { RipgrepReads } from './search-js.ts';
import { searchTool } from './search-tool.ts';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await temporaryRoot());
});

afterEach(async () => {
  await cleanup();
});

/** A catastrophic pattern for a backtracking engine: `(a+)+$` on `a…a!` tries 2^n splits. */
const REDOS = '(a+)+$';
const REDOS_LINE = `${'a'.repeat(40)}!\n`;

/**
 * The longest event-loop stall while `work` runs, in milliseconds. The bound asserted below is
 * far above scheduling noise and far below what a backtracking engine needs (2^40 steps for one
 * line: it would not return at all).
 */
async function longestStallMs(work: () => Promise<unknown>): Promise<number> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    await work();
  } finally {
    delay.disable();
  }
  return delay.max / 1e6;
}

describe('the JavaScript engine under a catastrophic pattern', () => {
  it('answers in linear time with the event loop turning', async () => {
    await writeFile(join(root, 'redos.txt'), REDOS_LINE.repeat(20_000));
    let response: Awaited<ReturnType<typeof callTool>> | undefined;
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 5);
    const stall = await longestStallMs(async () => {
      response = await callTool(searchTool({ root, engine: 'js' }), {
        pattern: REDOS,
      });
    });
    clearInterval(ticker);
    expect(response?.status).toBe('success');
    expect(response?.data).toMatchObject({ count: 0 });
    expect(stall).toBeLessThan(1000);
    // Timers ran while the search did, not only after it.
    expect(ticks).toBeGreaterThan(0);
  });

  it('ends as TIMEOUT at the deadline when the file takes longer', async () => {
    await writeFile(join(root, 'redos.txt'), REDOS_LINE.repeat(400_000));
    let response: Awaited<ReturnType<typeof callTool>> | undefined;
    const stall = await longestStallMs(async () => {
      response = await callTool(
        searchTool({ root, engine: 'js' }),
        { pattern: REDOS },
        { signal: AbortSignal.timeout(100) },
      );
    });
    expect(response && codeOf(response)).toBe('TIMEOUT');
    expect(stall).toBeLessThan(1000);
  });

  it('refuses what ripgrep refuses, before running anything', async () => {
    for (const pattern of ['(a)\\1', 'a(?=b)', '(?<=a)b', '(?<!a)b']) {
      const response = await callTool(searchTool({ root, engine: 'js' }), {
        pattern,
      });
      expect(codeOf(response)).toBe('INVALID_PARAM');
    }
  });
});

describe('RipgrepReads', () => {
  const line = `${'x'.repeat(99)}\n`;

  it('searches a file without NUL bytes whole', () => {
    const bytes = Buffer.from(line.repeat(2000));
    expect(new RipgrepReads().searchedLength(bytes)).toBe(bytes.length);
  });

  it('skips a file with a NUL in its first buffer', () => {
    const bytes = Buffer.concat([Buffer.from(line.repeat(600)), Buffer.of(0)]);
    expect(new RipgrepReads().searchedLength(bytes)).toBe(0);
  });

  it('searches the lines of the buffers before the one holding the NUL', () => {
    // 64 KiB holds 655 whole lines of 100 bytes; the second fill carries 36 bytes over.
    const bytes = Buffer.concat([Buffer.from(line.repeat(1000)), Buffer.of(0)]);
    expect(new RipgrepReads().searchedLength(bytes)).toBe(655 * 100);
  });

  it('keeps a buffer grown by a long line for the next file', () => {
    const reads = new RipgrepReads();
    reads.searchedLength(Buffer.from(`${'y'.repeat(70_000)}\n`));
    // The buffer is now 192 KiB, so a NUL at 100 KB lies in the first fill.
    const bytes = Buffer.concat([
      Buffer.from(line.repeat(1000)),
      Buffer.of(0),
      Buffer.from(line.repeat(1000)),
    ]);
    expect(reads.searchedLength(bytes)).toBe(0);
    expect(new RipgrepReads().searchedLength(bytes)).toBe(655 * 100);
  });
});
