import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findRedisServer } from '@candor/breaker-redis';
import { describe, expect, it } from 'vitest';

const demoRoot = dirname(dirname(fileURLToPath(import.meta.url)));
const redisInstalled = findRedisServer() !== undefined;
if (!redisInstalled) {
  process.stderr.write(
    'redis-server is not installed: the pnpm demo:fleet timeline test is skipped\n',
  );
}

describe.skipIf(!redisInstalled)('pnpm demo:fleet', () => {
  it('prints one timeline: open everywhere from one decision, one trial, closed everywhere', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--conditions=@candor/source', 'src/fleet-main.ts'],
      { cwd: demoRoot },
    );
    const lines = stdout.split('\n');
    const matching = (pattern: RegExp): string[] =>
      lines.filter((line) => pattern.test(line));
    // Five failing calls, each worker at most twice.
    const failed = matching(/call → API_ERROR \(upstream called\)/);
    expect(failed).toHaveLength(5);
    for (const worker of ['worker-1', 'worker-2', 'worker-3']) {
      expect(
        failed.filter((line) => line.includes(worker)).length,
      ).toBeLessThan(3);
    }
    // Open in all three; exactly one decided it.
    expect(matching(/circuit closed → open/)).toHaveLength(3);
    expect(
      matching(/circuit closed → open \(decided by this process\)/),
    ).toHaveLength(1);
    expect(
      matching(/call → CIRCUIT_OPEN \(upstream NOT called\)/).length,
    ).toBeGreaterThanOrEqual(3);
    // One trial for the fleet: one process decides half-open and closed, the others hear it.
    expect(
      matching(/circuit open → half_open \(decided by this process\)/),
    ).toHaveLength(1);
    expect(matching(/circuit half_open → closed/)).toHaveLength(3);
    expect(
      matching(/circuit half_open → closed \(decided by this process\)/),
    ).toHaveLength(1);
    // The timeline is in time order, and calls flow again at the end.
    const times = matching(/^\s+\+\s*\d+ ms/).map((line) =>
      Number(/\+\s*(\d+) ms/.exec(line)?.[1]),
    );
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(
      lines.indexOf(matching(/circuit half_open → closed/)[0] ?? ''),
    ).toBeLessThan(lines.lastIndexOf(matching(/call → OK/).at(-1) ?? ''));
  }, 120_000);
});
