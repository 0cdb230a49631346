/**
 * `pnpm --filter @candor/bench bench:fleet`: `registry.call` with the Redis breaker store ÷
 * without, in one run, and the Redis commands per 1,000 calls (from the server's INFO
 * commandstats). Times the built dist. Skips with a message where redis-server is missing.
 */
import {
  createRedisBreakerStore,
  findRedisServer,
  startRedisServer,
} from '@candor/breaker-redis';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { createClient } from '@redis/client';
import { measureTasks, pairedRatio } from './measure-tasks.ts';
import { add, addArguments, addSchema } from './trivial-tool.ts';

const GOAL = 1.3;

function registryWith(
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

/** Total commands the server has run, from INFO commandstats. */
async function serverCommands(client: {
  info(section: string): Promise<string>;
}): Promise<number> {
  const info = await client.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/calls=(\d+)/g)) total += Number(match[1]);
  return total;
}

async function main(): Promise<void> {
  if (findRedisServer() === undefined) {
    process.stdout.write(
      'bench:fleet skipped: redis-server is not installed (Debian: apt-get install redis-server)\n',
    );
    return;
  }
  const redis = await startRedisServer();
  const store = createRedisBreakerStore({ url: redis.url });
  const client = createClient({ url: redis.url });
  client.on('error', () => undefined);
  try {
    await store.connect();
    await client.connect();
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
    if (without === undefined || withStore === undefined) return;
    const ratio = pairedRatio(withStore, without);

    // Commands per 1,000 calls: calls at a steady pace, counted on the server.
    const before = await serverCommands(client);
    const calls = 10_000;
    const started = performance.now();
    for (let i = 0; i < calls; i++) {
      await fleet.call('add', args);
      // A service yields to the event loop between requests; so does this loop, so the store's
      // flush timer runs as it would in production.
      if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const elapsedMs = performance.now() - started;
    await store.close();
    // INFO itself is counted once by the second read.
    const perThousand =
      ((await serverCommands(client)) - before - 1) / (calls / 1_000);
    process.stdout.write(
      [
        `registry.call without a store: ${(without.meanNs / 1_000).toFixed(2)} µs`,
        `registry.call with the Redis store: ${(withStore.meanNs / 1_000).toFixed(2)} µs`,
        `ratio (paired median of ${without.roundsNs.length} rounds): ${ratio.toFixed(2)}× (goal ≤ ${GOAL}×) ${ratio <= GOAL ? 'met' : 'NOT met'}`,
        `Redis commands per 1,000 calls: ${perThousand.toFixed(1)} (${calls} calls in ${elapsedMs.toFixed(0)} ms, yielding every 10)`,
        '',
      ].join('\n'),
    );
    local.shutdown();
    fleet.shutdown();
  } finally {
    client.destroy();
    await redis.stop();
  }
}

await main();
