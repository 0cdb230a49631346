import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** A bench step that runs in a process of its own. */
export interface ChildRun {
  /** A module next to this one, such as `./memory-probe.ts`. */
  readonly script: string;
  readonly args: readonly string[];
  /** Ends a child that hangs instead of waiting for ever. */
  readonly timeoutMs: number;
  /**
   * Runs the probe in plain Node, as users run Candor, rather than under tsx: for a probe that
   * reports its process's peak RSS, which tsx's loader (a thread of its own, and the modules it
   * compiles) would otherwise dominate. The probe is compiled to JavaScript first, so it may
   * import Node's modules and packages only, not other files of the bench.
   */
  readonly plainNode?: boolean;
}

// Inside node_modules, so the compiled probe resolves the bench's packages as its source does,
// and no tool of the repository mistakes it for source.
const compiledProbes = fileURLToPath(
  new URL('../node_modules/.cache/candor-probes/', import.meta.url),
);

async function compileProbe(script: string): Promise<string> {
  const source = await readFile(script, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: script,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
    },
  });
  if (/\bfrom\s+['"]\.{1,2}\//u.test(outputText)) {
    throw new Error(
      `${basename(script)} imports a file of the bench; a probe run in plain Node may import packages only`,
    );
  }
  await mkdir(compiledProbes, { recursive: true });
  const compiled = join(
    compiledProbes,
    basename(script).replace(/\.ts$/u, '.mjs'),
  );
  await writeFile(compiled, outputText);
  return compiled;
}

/**
 * Runs a probe in a fresh Node process with `--expose-gc`, Candor loaded from its built `dist` as
 * users run it, and returns the JSON object it printed as its last line. A probe that fails rejects with its
 * own error output, so the reason is never lost.
 */
export async function runChild(run: ChildRun): Promise<unknown> {
  const script = fileURLToPath(new URL(run.script, import.meta.url));
  const args =
    run.plainNode === true
      ? ['--expose-gc', await compileProbe(script), ...run.args]
      : [
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
