// candor-fleet against a server that speaks RESP and lies (every command answered +OK): each
// command fails with exit 1 and one line on stderr, writes nothing to stdout, and returns.
import { describe, expect, it } from 'vitest';
import { startLyingServer } from '../__fixtures__/lying-server.ts';
import { FleetCliExit, runFleetCli } from './run-fleet-cli.ts';

async function run(
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runFleetCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
  });
  return { code, stdout, stderr };
}

describe('candor-fleet against a lying server', () => {
  for (const command of [['status'], ['open', 'web_fetch'], ['release', 'x']]) {
    it(`${command.join(' ')}: exit 1, one line on stderr, nothing on stdout`, async () => {
      const liar = await startLyingServer();
      try {
        const result = await run([
          ...command,
          '--url',
          liar.url,
          '--timeout-ms',
          '2000',
        ]);
        expect(result.code).toBe(FleetCliExit.Failed);
        expect(result.stdout).toBe('');
        expect(result.stderr.split('\n')).toHaveLength(2);
        expect(result.stderr).toMatch(/^candor-fleet: /);
      } finally {
        await liar.close();
      }
    }, 15_000);
  }
});
