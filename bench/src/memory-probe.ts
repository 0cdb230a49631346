/**
 * A child process that measures one thing about heap and timers, then prints one JSON line.
 * Each measurement runs alone in its own process, started with `--expose-gc`, so that one
 * cannot leave garbage or timers behind for the next.
 *
 * Usage: memory-probe.ts <candor|opossum> <tools>
 */
import { TimerCensus } from './timer-census.ts';

/** What a probe reports. */
export interface MemoryProbeResult {
  readonly subject: 'candor' | 'opossum';
  readonly tools: number;
  /** Heap after registering (Candor) or creating (opossum), before any call. */
  readonly createdBytes: number;
  /** Heap after one call of each tool. */
  readonly calledBytes: number;
  readonly timers: {
    readonly timeoutsCreated: number;
    readonly intervalsCreated: number;
    readonly live: number;
    readonly liveIntervals: number;
  };
}

// Installed before any library is imported, so no timer escapes the count.
const census = new TimerCensus().install();

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    throw new Error('memory-probe needs node --expose-gc');
  }
  // Several passes: one pass can leave objects whose finalisers free more.
  for (let pass = 0; pass < 4; pass++) gc();
  return process.memoryUsage().heapUsed;
}

async function probeCandor(count: number): Promise<MemoryProbeResult> {
  const { ToolRegistry } = await import('@candor/registry');
  const { defineTool, ToolResponse } = await import('@candor/tools');
  const { add, addArguments, addSchema } = await import('./trivial-tool.ts');
  // The tools themselves are the user's, not the layer's: they exist before the baseline.
  const tools = Array.from({ length: count }, (_, index) =>
    defineTool({
      name: `add_${String(index)}`,
      description: 'Adds two numbers.',
      input: addSchema(),
      run: (input) => ToolResponse.success(String(add(input))),
    }),
  );
  const base = heapUsed();
  const registry = new ToolRegistry();
  registry.on('tool:start', () => undefined);
  registry.on('tool:end', () => undefined);
  for (const tool of tools) registry.register(tool);
  const created = heapUsed();
  for (const tool of tools) {
    const response = await registry.call(tool.name, addArguments);
    if (response.status !== 'success') {
      throw new Error(
        `${tool.name} answered ${response.status}: ${response.text}`,
      );
    }
  }
  const called = heapUsed();
  const timers = census.counts();
  registry.shutdown();
  return {
    subject: 'candor',
    tools: count,
    createdBytes: created - base,
    calledBytes: called - base,
    timers,
  };
}

async function probeOpossum(count: number): Promise<MemoryProbeResult> {
  const { default: CircuitBreaker } = await import('opossum');
  const { opossumOptions } = await import('./opossum-options.ts');
  const { addArguments, addAsync, addSchema } =
    await import('./trivial-tool.ts');
  const actions = Array.from({ length: count }, () => {
    const schema = addSchema();
    return async (input: unknown) => addAsync(schema.parse(input));
  });
  const base = heapUsed();
  const breakers = actions.map(
    (action) => new CircuitBreaker(action, opossumOptions()),
  );
  const created = heapUsed();
  for (const breaker of breakers) await breaker.fire(addArguments);
  const called = heapUsed();
  const timers = census.counts();
  for (const breaker of breakers) breaker.shutdown();
  return {
    subject: 'opossum',
    tools: count,
    createdBytes: created - base,
    calledBytes: called - base,
    timers,
  };
}

async function main(argv: readonly string[]): Promise<void> {
  const [subject, countText] = argv;
  const count = Number(countText);
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(
      `tools must be a positive integer, got ${String(countText)}`,
    );
  }
  if (subject !== 'candor' && subject !== 'opossum') {
    throw new RangeError(
      `subject must be candor or opossum, got ${String(subject)}`,
    );
  }
  const result =
    subject === 'candor' ? await probeCandor(count) : await probeOpossum(count);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main(process.argv.slice(2));
