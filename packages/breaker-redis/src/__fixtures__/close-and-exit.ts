/**
 * A short-lived process (a CLI, a serverless handler) with a Redis store: it connects, closes,
 * tells the parent over IPC how connect() went, and then has nothing left to do: it must exit at
 * once. Its environment:
 *
 * - `REDIS_URL`, or `REDIS_SENTINEL` (JSON `{ name, sentinelRootNodes }`), or `REDIS_CLUSTER`
 *   (JSON `{ rootNodes }`): where the store connects;
 * - `PROBE_MS`: the store's probe interval; `CONNECT_TIMEOUT_MS`: its connect timeout;
 * - `CLOSE_ON_MESSAGE=1`: after connect() it sends `{ type: 'connected', connected }` and closes
 *   only when the parent sends `{ type: 'close', fellBack, failures }`, after the parent killed
 *   the servers, say. With `fellBack` true it first waits for the store to fall back to its local
 *   breakers, and then for `failures` more failed reconnections (the client's backoff grown).
 */
import { createRedisBreakerStore } from '../create-redis-breaker-store.ts';
import {
  type RedisBreakerClusterOptions,
  type RedisBreakerSentinelOptions,
  type RedisBreakerStoreOptions,
} from '../redis-breaker-store-options.ts';
import { recordingLogger } from './fleet-helpers.ts';

const env = process.env;

function where(): RedisBreakerStoreOptions {
  const sentinel = env['REDIS_SENTINEL'];
  if (sentinel !== undefined) {
    return {
      sentinel: JSON.parse(sentinel) as RedisBreakerSentinelOptions,
    };
  }
  const cluster = env['REDIS_CLUSTER'];
  if (cluster !== undefined) {
    return {
      cluster: JSON.parse(cluster) as RedisBreakerClusterOptions,
    };
  }
  return { url: env['REDIS_URL'] ?? '' };
}

const log = recordingLogger();
// Waited on before the store can warn at all, so the warning is never missed.
const fellBack = log.next('warn', /unusable/);
const store = createRedisBreakerStore({
  ...where(),
  probeIntervalMs: Number(env['PROBE_MS'] ?? '1000'),
  ...(env['CONNECT_TIMEOUT_MS'] === undefined
    ? {}
    : { connectTimeoutMs: Number(env['CONNECT_TIMEOUT_MS']) }),
  logger: log.logger,
});
const connected = await store.connect();
// A call's outcome pending, as a handler would leave one.
store.circuit('handler_tool', {
  resetTimeoutMs: 60_000,
  windowMs: 60_000,
  buckets: 6,
  minimumCalls: 5,
  failureRatePct: 50,
  leaseMs: 31_000,
});
if (env['CLOSE_ON_MESSAGE'] === '1') {
  const asked = new Promise<{ fellBack?: boolean; failures?: number }>(
    (resolve) => {
      process.once('message', resolve);
    },
  );
  process.send?.({ type: 'connected', connected });
  const { fellBack: waitFallback, failures = 0 } = await asked;
  if (waitFallback === true) {
    await fellBack;
    const failed = () =>
      log.lines.filter((line) => line.msg.includes('still unusable')).length;
    // Counted from the lines each time: none is missed between two waits.
    while (failed() < failures) await log.next('debug', /still unusable/);
  }
}
await store.close();
process.send?.({ type: 'closed', connected, health: store.health });
process.disconnect();
