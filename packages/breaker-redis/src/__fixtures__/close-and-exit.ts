/**
 * A short-lived process (a CLI, a serverless handler) with a Redis store: started with
 * `REDIS_URL` and `PROBE_MS` in its environment, it connects, closes, tells the parent over IPC
 * how connect() went, and then has nothing left to do: it must exit at once.
 */
import { createRedisBreakerStore } from '../create-redis-breaker-store.ts';

const store = createRedisBreakerStore({
  url: process.env['REDIS_URL'] ?? '',
  probeIntervalMs: Number(process.env['PROBE_MS'] ?? '1000'),
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
await store.close();
process.send?.({ type: 'closed', connected, health: store.health });
process.disconnect();
