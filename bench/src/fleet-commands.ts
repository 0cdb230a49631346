/**
 * What one process with the Redis breaker store costs Redis, counted the way `MONITOR` counts it:
 * the commands its connections send while it is idle, and per 1,000 `registry.call`s at paced
 * call rates. Commands a script runs inside Redis (MONITOR's `lua` lines) are not counted: the
 * process sent one command, the script. Benches may use the wall clock; this one paces calls by
 * it.
 */
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createRedisBreakerStore,
  findRedisServer,
  startRedisServer,
} from '@candor/breaker-redis';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { type MonitorLine, watchRedis } from './redis-monitor.ts';
import { add, addArguments, addSchema } from './trivial-tool.ts';

/** One paced window: calls at `rate` a second for the window, and what MONITOR counted. */
export interface CallRateRow {
  /** Calls a second the loop aimed at. */
  readonly rate: number;
  readonly calls: number;
  readonly commands: number;
  readonly seconds: number;
}

/** The command-rate rows of one run. */
export interface FleetCommandsRow {
  /** Commands a second of an idle, healthy process: between its first and last in the window. */
  readonly idlePerSecond: number;
  readonly idleCommands: number;
  readonly idleSeconds: number;
  readonly rates: readonly CallRateRow[];
  /** `redis-server --version`'s `v=` part. */
  readonly redisVersion: string;
}

/** How long each window lasts. */
export interface FleetCommandsOptions {
  readonly idleMs: number;
  /** Per call rate; slower rates get longer windows, so each counts enough calls. */
  readonly windowMs: Readonly<Record<number, number>>;
}

/** The call rates of the rows, per process. */
export const callRates = [10, 100, 1_000] as const;

/** A registry with the trivial `add` tool, its breaker on the given store. */
export function registryWith(
  breaker: ConstructorParameters<typeof ToolRegistry>[0],
): ToolRegistry {
  const registry = new ToolRegistry(breaker);
  registry.register(
    defineTool({
      name: 'add',
      description: 'Adds two numbers.',
      input: addSchema(),
      run: (input) => ToolResponse.success(String(add(input))),
    }),
  );
  return registry;
}

/** Calls at `rate` a second for `ms`, each when due by the wall clock; resolves with the count. */
async function pacedCalls(
  registry: ToolRegistry,
  rate: number,
  ms: number,
): Promise<number> {
  const total = Math.round((rate * ms) / 1000);
  const started = performance.now();
  let done = 0;
  while (done < total) {
    const due = Math.min(
      total,
      Math.floor(((performance.now() - started) * rate) / 1000) + 1,
    );
    for (; done < due; done++) {
      const answer = await registry.call('add', addArguments);
      if (answer.status !== 'success') {
        throw new Error(`a paced call failed: ${answer.text}`);
      }
    }
    const next = started + (done * 1000) / rate;
    await sleep(Math.max(0, next - performance.now()));
  }
  return total;
}

/** Commands clients sent, as MONITOR printed them, leaving out scripts' own and the marks. */
function sent(lines: readonly MonitorLine[]): MonitorLine[] {
  return lines.filter((line) => line.from !== 'lua' && line.command !== 'ECHO');
}

/** The `v=` part of `redis-server --version`, for the report. */
function redisVersion(): string {
  const answer = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return /v=(\S+)/.exec(answer.stdout)?.[1] ?? 'unknown';
}

/**
 * Starts a redis-server, one store with its defaults, and a MONITOR connection; counts an idle
 * window, then one window per call rate. `undefined` where redis-server is not installed.
 */
export async function measureFleetCommands(
  options: FleetCommandsOptions,
): Promise<FleetCommandsRow | undefined> {
  if (findRedisServer() === undefined) return undefined;
  const redis = await startRedisServer();
  const store = createRedisBreakerStore({ url: redis.url });
  const registry = registryWith({ telemetry: false, breaker: { store } });
  const monitor = await watchRedis(redis.url);
  try {
    if (!(await store.connect())) {
      throw new Error('the Redis breaker store did not connect');
    }
    // Every script loaded (a first EVALSHA answers NOSCRIPT), the circuit made, the first batch out.
    await pacedCalls(registry, 100, 100);
    await sleep(100);
    const from = await monitor.mark('idle-from');
    await sleep(options.idleMs);
    const to = await monitor.mark('idle-to');
    const idle = sent(monitor.lines.slice(from + 1, to));
    const first = idle[0]?.at ?? 0;
    const last = idle.at(-1)?.at ?? 0;
    const rates: CallRateRow[] = [];
    for (const rate of callRates) {
      const ms = options.windowMs[rate] ?? 2_000;
      const start = await monitor.mark(`rate-${String(rate)}-from`);
      const began = performance.now();
      const calls = await pacedCalls(registry, rate, ms);
      // The last batch leaves within the flush interval (10 ms): it belongs to this window.
      await sleep(50);
      const end = await monitor.mark(`rate-${String(rate)}-to`);
      rates.push({
        rate,
        calls,
        commands: sent(monitor.lines.slice(start + 1, end)).length,
        seconds: (performance.now() - began) / 1000,
      });
    }
    return {
      idlePerSecond:
        idle.length < 2
          ? idle.length
          : (idle.length - 1) / ((last - first) / 1000),
      idleCommands: idle.length,
      idleSeconds: options.idleMs / 1000,
      rates,
      redisVersion: redisVersion(),
    };
  } finally {
    monitor.close();
    registry.shutdown();
    await store.close();
    await redis.stop();
  }
}
