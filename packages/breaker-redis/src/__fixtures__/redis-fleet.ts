import { afterAll, beforeAll } from 'vitest';
import { type FleetAdmission, type FleetCircuit } from '../fleet-circuit.ts';
import { createRedisBreakerStore } from '../create-redis-breaker-store.ts';
import { type RedisBreakerStore } from '../redis-breaker-store.ts';
import { type RedisBreakerStoreOptions } from '../redis-breaker-store-options.ts';
import { type RedisServer, startRedisServer } from '../redis-server.ts';
import { type recordingLogger } from './fleet-helpers.ts';

/** One real redis-server for a describe block, and a factory of stores connected to it. */
export interface RedisFleet {
  /** The server's URL and port (once `beforeAll` has run). */
  readonly url: string;
  readonly port: number;
  /** A store on the server, connected; closed after the block. */
  readonly store: (
    options?: RedisBreakerStoreOptions,
  ) => Promise<RedisBreakerStore>;
  /** Closes `store` after the block too (for stores made by hand). */
  readonly track: (store: RedisBreakerStore) => RedisBreakerStore;
  /** A tool name no other test of the block uses. */
  readonly fresh: () => string;
}

/**
 * Starts a redis-server before the calling describe block's tests and stops it after, closing
 * every store made through the returned fleet. Call it inside `describe`.
 */
export function useRedisFleet(toolPrefix = 'tool'): RedisFleet {
  let redis: RedisServer | undefined;
  const stores: RedisBreakerStore[] = [];
  let counter = 0;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await redis?.stop();
  });
  const fleet: RedisFleet = {
    get url(): string {
      if (redis === undefined) throw new Error('the Redis server is not up');
      return redis.url;
    },
    get port(): number {
      if (redis === undefined) throw new Error('the Redis server is not up');
      return redis.port;
    },
    store: async (options = {}) => {
      // A command timeout a loaded machine cannot miss by accident; tests of the timeout set it.
      const made = createRedisBreakerStore({
        url: fleet.url,
        commandTimeoutMs: 1_000,
        ...options,
      });
      stores.push(made);
      await made.connect();
      return made;
    },
    track: (store) => {
      stores.push(store);
      return store;
    },
    fresh: () => {
      counter += 1;
      return `${toolPrefix}_${String(counter)}`;
    },
  };
  return fleet;
}

/** The element at `index`, or a failed test. */
export function at<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`nothing at ${String(index)}`);
  return item;
}

/** Fails the test with the admission's kind when it is not a refusal. */
export function refusal(
  circuit: FleetCircuit,
): Extract<FleetAdmission, { kind: 'refuse' }> {
  const admission = circuit.admit();
  if (admission.kind !== 'refuse') {
    throw new Error(`expected a refusal, got ${admission.kind}`);
  }
  return admission;
}

/** `waited`, or a failure as soon as the store logs that it fell back as a whole. */
export async function unlessFallback<T>(
  waited: Promise<T>,
  log: ReturnType<typeof recordingLogger>,
): Promise<T> {
  const fellBack = log.next('warn', /unusable/).then(() => {
    throw new Error('the whole store fell back to local breakers');
  });
  return Promise.race([waited, fellBack]);
}
