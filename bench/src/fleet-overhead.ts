/**
 * `pnpm --filter @candor/bench bench:fleet`: `registry.call` with the Redis breaker store ÷
 * without, in one run, then row 5 of `pnpm bench` with its full windows (the Redis commands of
 * one process, counted with MONITOR; `pnpm bench --only fleet` runs that alone). Times the built
 * dist. Skips with a message where redis-server is missing.
 */
import {
  createRedisBreakerStore,
  findRedisServer,
  startRedisServer,
} from '@candor/breaker-redis';
import { parseBenchOptions } from './bench-options.ts';
import { measureFleetCommands, registryWith } from './fleet-commands.ts';
import { fleetSection } from './fleet-report.ts';
import { measureTasks, pairedRatio } from './measure-tasks.ts';
import { addArguments } from './trivial-tool.ts';

const GOAL = 1.3;

async function main(): Promise<void> {
  if (findRedisServer() === undefined) {
    process.stdout.write(
      'bench:fleet skipped: redis-server is not installed (Debian: apt-get install redis-server)\n',
    );
    return;
  }
  const redis = await startRedisServer();
  const store = createRedisBreakerStore({ url: redis.url });
  try {
    await store.connect();
    const local = registryWith({ telemetry: false });
    const fleet = registryWith({ telemetry: false, breaker: { store } });
    const args = addArguments;
    for (const registry of [local, fleet]) {
      const answer = await registry.call('add', args);
      if (answer.status !== 'success') {
        throw new Error(`the bench would time a failure: ${answer.text}`);
      }
    }
    const [without, withStore] = await measureTasks(
      [
        {
          name: 'registry.call, local breaker',
          run: () => local.call('add', args),
        },
        {
          name: 'registry.call, Redis store',
          run: () => fleet.call('add', args),
        },
      ],
      { rounds: 5, minCpuTimeMs: 300, batchSamples: 64, minSamples: 64 },
    );
    local.shutdown();
    fleet.shutdown();
    if (without === undefined || withStore === undefined) return;
    const ratio = pairedRatio(withStore, without);
    process.stdout.write(
      [
        `registry.call without a store: ${(without.meanNs / 1_000).toFixed(2)} µs`,
        `registry.call with the Redis store: ${(withStore.meanNs / 1_000).toFixed(2)} µs`,
        `ratio (paired median of ${without.roundsNs.length} rounds): ${ratio.toFixed(2)}× (goal ≤ ${GOAL}×) ${ratio <= GOAL ? 'met' : 'NOT met'}`,
        '',
      ].join('\n'),
    );
  } finally {
    await store.close();
    await redis.stop();
  }
  // Paced calls, counted with MONITOR, on a server and a store of their own.
  const commands = await measureFleetCommands(parseBenchOptions([]).fleet);
  process.stdout.write(`${fleetSection(commands).join('\n')}\n`);
}

await main();
