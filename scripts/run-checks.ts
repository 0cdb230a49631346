// `pnpm test`: every check the repository has, each run even when one before it failed, so a
// broken format check never hides a failing package check. Prints one line a step with its time,
// and exits 1 if any step failed.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

interface Step {
  readonly name: string;
  readonly args: readonly string[];
}

const steps: readonly Step[] = [
  { name: 'format', args: ['format:check'] },
  { name: 'typecheck', args: ['typecheck'] },
  { name: 'lint', args: ['lint'] },
  { name: 'docs', args: ['docs:build'] },
  { name: 'vitest', args: ['test:unit'] },
  { name: 'packages', args: ['check:packages'] },
];

/** Runs `pnpm <args>` with the terminal attached, resolving to its exit code. */
function run(args: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('pnpm', [...args], { stdio: 'inherit' });
    child.on('error', () => {
      resolve(127);
    });
    child.on('close', (code, signal) => {
      resolve(code ?? (signal === null ? 1 : 128));
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

const results: { name: string; code: number; seconds: number }[] = [];
for (const step of steps) {
  if (only.size > 0 && !only.has(step.name)) continue;
  const started = performance.now();
  const code = await run(step.args);
  results.push({
    name: step.name,
    code,
    seconds: (performance.now() - started) / 1000,
  });
}

const total = results.reduce((sum, result) => sum + result.seconds, 0);
process.stdout.write('\nchecks:\n');
for (const { name, code, seconds } of results) {
  const mark = code === 0 ? 'ok    ' : `FAILED (exit ${String(code)})`;
  process.stdout.write(
    `  ${name.padEnd(10)} ${mark.padEnd(16)} ${seconds.toFixed(0).padStart(4)} s\n`,
  );
}
process.stdout.write(
  `  ${'total'.padEnd(27)} ${total.toFixed(0).padStart(4)} s\n`,
);
process.exit(results.every((result) => result.code === 0) ? 0 : 1);
