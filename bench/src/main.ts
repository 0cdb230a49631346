/**
 * `pnpm bench`: Candor's overhead beside its peers, as ratios against baselines of the same run.
 * The full run writes docs/benchmarks.md; `--quick` is CI's smoke run and writes nothing.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { measureAgentRun } from './agent-run.ts';
import { measureAgentTracing } from './agent-tracing.ts';
import { parseBenchOptions, usage, UsageError } from './bench-options.ts';
import { measureCallOverhead } from './call-overhead.ts';
import { measureFleetCommands } from './fleet-commands.ts';
import { fleetSection } from './fleet-report.ts';
import { machineInfo } from './machine-info.ts';
import { measureMemory } from './memory-row.ts';
import { peerVersions } from './peer-versions.ts';
import { mergeReport, renderReport } from './report.ts';
import { measureTraces } from './trace-row.ts';

const documentUrl = new URL('../../docs/benchmarks.md', import.meta.url);

function progress(step: string): void {
  // stdout carries the report; progress goes to stderr so the two never mix.
  process.stderr.write(`bench: ${step}\n`);
}

async function readExisting(): Promise<string | undefined> {
  try {
    return await readFile(documentUrl, 'utf8');
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let options;
  try {
    options = parseBenchOptions(argv);
  } catch (error: unknown) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (options.help) {
    process.stdout.write(
      `${usage}\n\n  --quick  CI's smoke run: small sizes, short timings, nothing written to docs/\n  --only   one row alone, printed; nothing written to docs/\n`,
    );
    return 0;
  }
  const started = performance.now();
  const machine = machineInfo();
  progress(
    `${options.quick ? 'quick' : 'full'} run on ${machine.cpu}, Node ${machine.node}, load ${machine.loadAverage.toFixed(2)}`,
  );
  if (options.only === 'fleet') {
    progress('5/5 Redis commands of one process, alone');
    const fleet = await measureFleetCommands(options.fleet);
    process.stdout.write(`${fleetSection(fleet).join('\n')}\n`);
    return 0;
  }
  progress('1/5 one tool call');
  const call = (await measureCallOverhead(options.timing)).timings;
  progress('2/5 one agent run');
  const agent = await measureAgentRun(options.agentTiming);
  progress('2b/5 one agent run, telemetry on a no-op API and off');
  const tracing = await measureAgentTracing(options.tracingTiming);
  progress(
    `3/5 heap and timers of ${options.memoryTools.toLocaleString('en')} tools`,
  );
  const memory = await measureMemory(options.memoryTools);
  progress(`4/5 trace normalisation on ${String(options.traceBytes / 1e6)} MB`);
  const trace = await measureTraces(options.traceBytes, options.traceRounds);
  progress('5/5 Redis commands of one process with the Redis breaker store');
  const fleet = await measureFleetCommands(options.fleet);
  const report = renderReport({
    quick: options.quick,
    machine,
    loadAverageAtEnd: loadavg()[0] ?? 0,
    versions: await peerVersions(),
    call,
    agent,
    tracing,
    memory,
    trace,
    fleet,
    rounds: options.timing.rounds,
    seconds: (performance.now() - started) / 1000,
  });
  process.stdout.write(`${report}\n`);
  if (options.quick) {
    progress('quick mode: docs/benchmarks.md left as it was');
  } else {
    const path = fileURLToPath(documentUrl);
    // The repo's format check covers docs/, so the page is written the way Prettier would.
    const text = await format(mergeReport(await readExisting(), report), {
      ...(await resolveConfig(path)),
      filepath: path,
    });
    await writeFile(documentUrl, text);
    progress('wrote docs/benchmarks.md');
  }
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error: unknown) {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
}
