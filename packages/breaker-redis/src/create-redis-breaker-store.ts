import { RedisBreakerStore } from './redis-breaker-store.ts';
import { type RedisBreakerStoreOptions } from './redis-breaker-store-options.ts';

/**
 * Creates a {@link RedisBreakerStore}. Call `connect()` before serving, so a process started
 * while a circuit is open refuses at once, and `close()` on exit.
 *
 * @example
 * ```ts
 * const store = createRedisBreakerStore({
 *   url: 'rediss://breakers.internal:6380',
 *   password: process.env.REDIS_PASSWORD,
 *   keyPrefix: 'support-agent:',
 * });
 * await store.connect();
 * ```
 */
export function createRedisBreakerStore(
  options: RedisBreakerStoreOptions = {},
): RedisBreakerStore {
  return new RedisBreakerStore(options);
}
