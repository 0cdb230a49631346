// A fleet of workers sharing one circuit per tool through Redis. Each worker has its own Redis
// connection and registry, as each process of a real fleet would. Offline: it starts a private
// redis-server on 127.0.0.1 (set REDIS_URL to use yours), and says so and exits 0 without one.
import {
  createRedisBreakerStore,
  findRedisServer,
  startRedisServer,
} from '@candor/breaker-redis';
import { ToolRegistry } from '@candor/registry';
import { defineTool, outcomeOf, ToolResponse } from '@candor/tools';
import { z } from 'zod';

let url = process.env['REDIS_URL'];
let stop = async (): Promise<void> => {};
if (url === undefined) {
  if (findRedisServer() === undefined) {
    console.log(
      'skipped: redis-server is not installed (Debian: apt-get install redis-server)',
    );
    process.exit(0);
  }
  const redis = await startRedisServer();
  url = redis.url;
  stop = () => redis.stop();
}

let upstreamCalls = 0;
async function worker(name: string) {
  const store = createRedisBreakerStore({ url, keyPrefix: 'candor-example:' });
  await store.connect(); // reads every open circuit before it resolves
  const registry = new ToolRegistry({
    // Two failures anywhere in the fleet open the circuit everywhere.
    breaker: {
      store,
      minimumCalls: 2,
      failureRatePct: 50,
      resetTimeoutMs: 60_000,
    },
  }).register(
    defineTool({
      name: 'weather_api',
      description: 'Calls a weather service that is down',
      input: z.object({}),
      run: () => {
        upstreamCalls += 1;
        return ToolResponse.error(
          'NETWORK_ERROR',
          'The weather service answered 503',
        );
      },
    }),
  );
  return {
    /** Resolves once this worker sees the circuit open: the fleet decides it through Redis. */
    async seesOpen(): Promise<void> {
      const giveUp = Date.now() + 5_000;
      while (
        registry.health().find((breaker) => breaker.name === 'weather_api')
          ?.state !== 'open'
      ) {
        if (Date.now() > giveUp) throw new Error('the circuit never opened');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async call(): Promise<void> {
      const before = upstreamCalls;
      const response = await registry.call('weather_api', {});
      const code = response.status === 'error' ? response.errorInfo.code : '';
      const ran =
        upstreamCalls > before ? 'upstream called' : 'upstream NOT called';
      console.log(`${name}: ${outcomeOf(response)} ${code} (${ran})`);
    },
    async close(): Promise<void> {
      registry.shutdown();
      await store.close();
    },
  };
}

const one = await worker('worker-1');
const two = await worker('worker-2');
try {
  await one.call();
  await two.call();
  // The deciding failure's outcome reaches Redis in the store's next batch, which opens the
  // circuit fleet-wide; wait until a worker sees it before starting the next one.
  await two.seesOpen();
  // A worker that starts now has never seen a failure, yet its first call is refused.
  const three = await worker('worker-3');
  await three.call();
  await three.close();
} finally {
  await one.close();
  await two.close();
  await stop();
}
