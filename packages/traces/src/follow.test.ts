import { once } from 'node:events';
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

const fixture = (name: string) =>
  fileURLToPath(new URL(`__fixtures__/${name}`, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'candor-follow-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** runCli on --follow with stdout as lines, each awaited as an event: no sleeps. */
function following(file: string) {
  const stdout = new PassThrough();
  const controller = new AbortController();
  const lines: string[] = [];
  let rest = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) {
      lines.push(part);
      stdout.emit('line', part);
    }
  });
  const exit = runCli(['--follow', file], {
    stdin: new PassThrough(),
    stdout,
    stderr: new PassThrough(),
    env: {},
    signal: controller.signal,
  });
  /** Resolves with the first line (already printed or still to come) that `test` accepts. */
  const line = async (test: (text: string) => boolean): Promise<string> => {
    // Several lines can arrive in one chunk: each wait re-reads all lines so far, so a line
    // emitted while no listener was registered is still found.
    for (;;) {
      const seen = lines.find(test);
      if (seen !== undefined) return seen;
      await once(stdout, 'line');
    }
  };
  return {
    lines,
    line,
    exit,
    stop: () => {
      controller.abort();
    },
  };
}

describe('--follow <file>', () => {
  it('prints each call within 100 ms of its outcome line being appended', async () => {
    const file = join(scratch, 'gemini.jsonl');
    writeFileSync(file, '');
    const run = following(file);
    const latencies: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      appendFileSync(
        file,
        `${JSON.stringify({ type: 'tool_use', tool_name: 'read_file', tool_id: `t${index}`, parameters: { n: index } })}\n`,
      );
      const printed = run.line((text) => text.includes(`[t${index} `));
      const appended = performance.now();
      appendFileSync(
        file,
        `${JSON.stringify({ type: 'tool_result', tool_id: `t${index}`, status: index === 3 ? 'error' : 'success', output: 'ok' })}\n`,
      );
      const text = await printed;
      latencies.push(performance.now() - appended);
      expect(text).toMatch(
        index === 3 ? /^✗ error {3}read_file/ : /^✓ success read_file/,
      );
    }
    run.stop();
    expect(await run.exit).toBe(0);
    expect(run.lines.at(-1)).toBe(
      'gemini: 5 calls · 4 ✓ success · 1 ✗ error · 0 ⊘ denied · 0 ? unknown',
    );
    console.log(
      `--follow latency per call (ms): ${latencies.map((ms) => ms.toFixed(1)).join(', ')}`,
    );
    expect(Math.max(...latencies)).toBeLessThan(100);
  }, 30_000);

  it('prints a held claude-code call at its outcome line, and a correction when the run-end line denies it', async () => {
    const trace = readFileSync(
      fixture('claude-code/stream-json.jsonl'),
      'utf8',
    ).split('\n');
    const file = join(scratch, 'claude.jsonl');
    writeFileSync(file, '');
    const run = following(file);
    // Up to toolu_01H's tool_result (line 16): is_error true, so ✗ error for now.
    appendFileSync(file, `${trace.slice(0, 16).join('\n')}\n`);
    const early = await run.line((text) => text.includes('[toolu_01H '));
    expect(early).toMatch(/^✗ error {3}Write/);
    expect(run.lines.some((text) => text.startsWith('↻'))).toBe(false);
    // The rest, with the run-end result line listing toolu_01H in permission_denials.
    appendFileSync(file, trace.slice(16).join('\n'));
    const correction = await run.line((text) =>
      text.startsWith('↻ correction: toolu_01H'),
    );
    expect(correction).toBe('↻ correction: toolu_01H was ✗ error, now');
    const corrected = await run.line((text) =>
      text.startsWith('⊘ denied  Write'),
    );
    expect(corrected).toContain('toolu_01H');
    run.stop();
    expect(await run.exit).toBe(0);
    // A call printed once whose final word did not change is not printed again.
    expect(
      run.lines.filter((text) => text.includes('[toolu_01A ')).length,
    ).toBe(1);
  }, 30_000);
});
