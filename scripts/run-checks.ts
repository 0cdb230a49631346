// `pnpm test`: every check the repository has, each run even when one before it failed, so a
// broken format check never hides a failing package check. Prints one line a step with its time,
// and exits 1 if any step failed.
//
// The steps before Vitest are independent, and most of them are one process on one core
// (typecheck and lint each build one TypeScript program for the whole repository), so they run
// side by side; each one's output is held and printed whole when it ends, so the log reads step by
// step. Vitest runs last and alone: it fills both cores itself, and its docs-site tests read the
// site the docs step built.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

interface Step {
  readonly name: string;
  readonly args: readonly string[];
  /** Runs after every step before it has ended, with the terminal attached. */
  readonly alone?: true;
}

const steps: readonly Step[] = [
  { name: 'format', args: ['format:check'] },
  { name: 'typecheck', args: ['typecheck'] },
  { name: 'lint', args: ['lint'] },
  { name: 'docs', args: ['docs:build'] },
  { name: 'packages', args: ['check:packages'] },
  { name: 'vitest', args: ['test:unit'], alone: true },
];

interface Result {
  readonly name: string;
  readonly code: number;
  readonly seconds: number;
}

function exitCode(code: number | null, signal: NodeJS.Signals | null): number {
  return code ?? (signal === null ? 1 : 128);
}

/** Runs `pnpm <args>` with the terminal attached. */
function runAttached(step: Step): Promise<Result> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('pnpm', [...step.args], { stdio: 'inherit' });
    const done = (code: number): void => {
      resolve({
        name: step.name,
        code,
        seconds: (performance.now() - started) / 1000,
      });
    };
    child.on('error', () => {
      done(127);
    });
    child.on('close', (code, signal) => {
      done(exitCode(code, signal));
    });
  });
}

/** Runs `pnpm <args>` with its output held, then printed whole under the step's name. */
function runHeld(step: Step): Promise<Result> {
  const started = performance.now();
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    const child = spawn('pnpm', [...step.args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // A held step writes to a pipe; keep its colours when ours reach a terminal.
      env:
        process.stdout.isTTY && process.env['NO_COLOR'] === undefined
          ? { ...process.env, FORCE_COLOR: '1' }
          : process.env,
    });
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    let ended = false;
    const done = (code: number): void => {
      if (ended) return;
      ended = true;
      const seconds = (performance.now() - started) / 1000;
      const mark = code === 0 ? 'ok' : `FAILED (exit ${String(code)})`;
      process.stdout.write(
        `\n── ${step.name}: ${mark}, ${seconds.toFixed(0)} s ──\n`,
      );
      process.stdout.write(Buffer.concat(chunks));
      resolve({ name: step.name, code, seconds });
    };
    child.on('error', () => {
      done(127);
    });
    child.on('close', (code, signal) => {
      done(exitCode(code, signal));
    });
  });
}

const only = new Set(process.argv.slice(2));
const unknown = [...only].filter(
  (name) => !steps.some((step) => step.name === name),
);
if (unknown.length > 0) {
  process.stderr.write(
    `run-checks: unknown step ${unknown.join(', ')}; steps are ${steps.map((s) => s.name).join(', ')}\n`,
  );
  process.exit(2);
}

const chosen = steps.filter((step) => only.size === 0 || only.has(step.name));
const started = performance.now();
const together = chosen.filter((step) => step.alone !== true);
if (together.length > 0) {
  process.stdout.write(
    `run-checks: ${together.map((step) => step.name).join(', ')} side by side; output follows as each ends\n`,
  );
}
const results = await Promise.all(
  together.map((step) =>
    together.length === 1 ? runAttached(step) : runHeld(step),
  ),
);
for (const step of chosen) {
  if (step.alone === true) results.push(await runAttached(step));
}

const wall = (performance.now() - started) / 1000;
process.stdout.write('\nchecks:\n');
for (const { name, code, seconds } of results) {
  const mark = code === 0 ? 'ok    ' : `FAILED (exit ${String(code)})`;
  process.stdout.write(
    `  ${name.padEnd(10)} ${mark.padEnd(16)} ${seconds.toFixed(0).padStart(4)} s\n`,
  );
}
process.stdout.write(
  `  ${'total'.padEnd(27)} ${wall.toFixed(0).padStart(4)} s (wall clock)\n`,
);
process.exit(results.every((result) => result.code === 0) ? 0 : 1);
