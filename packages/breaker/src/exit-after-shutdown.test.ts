import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

const fixture = fileURLToPath(
  new URL('__fixtures__/exit-after-shutdown.ts', import.meta.url),
);
const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('process lifetime', () => {
  it('21. after shutdownAll() no timer is left and a real process exits by itself', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@candor/source', fixture],
      { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    try {
      const [code, signal] = (await once(child, 'exit')) as [
        number | null,
        NodeJS.Signals | null,
      ];
      expect({ code, signal, stderr }).toEqual({
        code: 0,
        signal: null,
        stderr: '',
      });
    } finally {
      if (child.exitCode === null) child.kill();
    }
    const report = JSON.parse(stdout) as {
      states: [string, string][];
      before: number;
      after: number;
    };
    expect(report.states).toEqual([
      ['open_tool', 'open'],
      ['closed_tool', 'closed'],
      ['forced_tool', 'open'],
      ['disabled_tool', 'disabled'],
    ]);
    // The shared ticker's interval and open_tool's reset timer were live before shutdown.
    expect(report.before).toBe(2);
    expect(report.after).toBe(0);
    // A backstop, not a speed goal: starting tsx in a child takes seconds on a loaded machine
    // (5.5 s with two CPU burners beside the suite). A leaked timer is still caught: by `after`,
    // or by a child that never exits.
  }, 120_000);
});
