import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A bench step that runs in a process of its own. */
export interface ChildRun {
  /** A module next to this one, such as `./memory-probe.ts`. */
  readonly script: string;
  readonly args: readonly string[];
  /** Ends a child that hangs instead of waiting for ever. */
  readonly timeoutMs: number;
}

/**
 * Runs a probe in a fresh Node process with `--expose-gc`, Candor loaded from its built `dist` as
 * users run it, and returns the JSON object it printed as its last line. A probe that fails rejects with its
 * own error output, so the reason is never lost.
 */
export async function runChild(run: ChildRun): Promise<unknown> {
  const script = fileURLToPath(new URL(run.script, import.meta.url));
  const args = [
    '--expose-gc',
    '--import',
    import.meta.resolve('tsx'),
    script,
    ...run.args,
  ];
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { timeout: run.timeoutMs, maxBuffer: 16 * 2 ** 20 },
      (error, out, err) => {
        if (error === null) {
          resolve(out);
          return;
        }
        reject(
          new Error(
            `${run.script} ${run.args.join(' ')} failed (${error.killed ? `killed after ${String(run.timeoutMs)} ms` : `exit code ${String(error.code)}`}):\n${err.trim()}`,
          ),
        );
      },
    );
  });
  const last = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as unknown;
  } catch {
    throw new Error(
      `${run.script} printed no JSON result; its output ended with: ${last.slice(0, 200)}`,
    );
  }
}
