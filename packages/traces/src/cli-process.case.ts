import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What a real child process of this package printed, and how it exited. */
export interface ProcessRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs a source file of this package for real, in a child process with the source condition,
 * `input` on its stdin. The environment is the test's with colour off and outside GitHub
 * Actions (so a CI that sets GITHUB_ACTIONS runs the same tests), then `env` on top.
 */
export async function runSource(
  script: string,
  {
    args = [],
    input = '',
    env = {},
  }: {
    readonly args?: readonly string[];
    readonly input?: string;
    readonly env?: Readonly<Record<string, string | undefined>>;
  } = {},
): Promise<ProcessRun> {
  const child = spawn(
    process.execPath,
    ['--conditions=@candor/source', '--import', 'tsx', script, ...args],
    {
      cwd: packageDir,
      stdio: 'pipe',
      env: {
        ...process.env,
        NO_COLOR: '1',
        FORCE_COLOR: undefined,
        GITHUB_ACTIONS: undefined,
        ...env,
      },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout
    .setEncoding('utf8')
    .on('data', (chunk: string) => (stdout += chunk));
  child.stderr
    .setEncoding('utf8')
    .on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(input);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  return { code, stdout, stderr };
}

/** The `candor-trace` bin (src/cli.ts) in a child process; see {@link runSource}. */
export function candorTrace(
  args: readonly string[],
  options: {
    readonly input?: string;
    readonly env?: Readonly<Record<string, string | undefined>>;
  } = {},
): Promise<ProcessRun> {
  return runSource('src/cli.ts', { ...options, args });
}
