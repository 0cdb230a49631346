// Attack on "held until released": a process that was cut off while an operator released a hold
// (or while the fleet closed a circuit) comes back remembering the hold (or the open circuit).
// Its resync writes back what Redis "lost" only when Redis really lost it: a transition made
// since (its epoch is newer) is never undone.
import { createToolBreaker, type ToolBreaker } from '@candor/breaker';
import { ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import {
  rawRedisClient,
  recordingLogger,
  redisInstalled,
} from './__fixtures__/fleet-helpers.ts';
import { useRedisFleet } from './__fixtures__/redis-fleet.ts';
import { startTcpProxy } from './__fixtures__/tcp-proxy.ts';
import { createRedisBreakerStore } from './create-redis-breaker-store.ts';

/** Resolves when `breaker`'s state becomes `to` (at once if it is already). */
async function stateBecomes(breaker: ToolBreaker, to: string): Promise<void> {
  if (breaker.state === to) return;
  await new Promise<void>((resolve) => {
    const off = breaker.onStateChange((change) => {
      if (change.to !== to) return;
      off();
      resolve();
    });
  });
}

describe.skipIf(!redisInstalled)('a process cut off during a change', () => {
  const redis = useRedisFleet('away');

  for (const hold of ['open', 'closed'] as const) {
    it(`a hold ${hold} released while it was away stays released when it comes back`, async () => {
      const prefix = `away-${hold}:`;
      const tool = redis.fresh();
      const operator = await redis.store({ keyPrefix: prefix });
      const proxy = await startTcpProxy(redis.port);
      const log = recordingLogger();
      const away = createRedisBreakerStore({
        url: proxy.url,
        keyPrefix: prefix,
        logger: log.logger,
        probeIntervalMs: 50,
        commandTimeoutMs: 200,
      });
      const breaker = createToolBreaker(tool, {
        store: away,
        telemetry: false,
      });
      try {
        expect(await away.connect()).toBe(true);
        // Open first, so a hold closed is seen arriving (a state change) as a hold open is.
        const opened = stateBecomes(breaker, 'open');
        await operator.fleet.forceOpen(tool);
        await opened;
        if (hold === 'closed') {
          const closed = stateBecomes(breaker, 'closed');
          await operator.fleet.forceClose(tool);
          await closed;
        }
        // Cut off: it hears no release, and notices only at its next beat.
        const back = log.next('info', /resynchronised/);
        for (const connection of proxy.connections) connection.blackHole();
        expect(await operator.fleet.release(tool)).toBe(true);
        await back;
        const status = await operator.fleet.status();
        const entry = status.tools.find((t) => t.tool === tool);
        expect(entry?.forced).toBeUndefined();
        expect(entry?.state).toBe('closed');
        expect(breaker.state).toBe('closed');
      } finally {
        breaker.shutdown();
        await away.close();
        await proxy.close();
      }
    }, 15_000);
  }

  it('a circuit the fleet closed while it was away is not reopened when it comes back', async () => {
    const prefix = 'away-rules:';
    const tool = redis.fresh();
    const here = await redis.store({ keyPrefix: prefix });
    const proxy = await startTcpProxy(redis.port);
    const log = recordingLogger();
    const away = createRedisBreakerStore({
      url: proxy.url,
      keyPrefix: prefix,
      logger: log.logger,
      probeIntervalMs: 50,
      commandTimeoutMs: 200,
    });
    const options = { telemetry: false, resetTimeoutMs: 50 } as const;
    const there = createToolBreaker(tool, { store: away, ...options });
    const local = createToolBreaker(tool, { store: here, ...options });
    const client = await rawRedisClient(redis.url);
    try {
      expect(await away.connect()).toBe(true);
      const opened = stateBecomes(there, 'open');
      const down = () =>
        Promise.resolve(ToolResponse.error('NETWORK_ERROR', 'down'));
      for (let i = 0; i < 5; i += 1) await local.execute(down);
      await opened;
      const back = log.next('info', /resynchronised/);
      for (const connection of proxy.connections) connection.blackHole();
      // The trial here succeeds once due: closed in Redis, unheard by the process cut off.
      const up = () => Promise.resolve(ToolResponse.success('up'));
      while ((await local.execute(up)).status !== 'success') {
        await client.ping();
      }
      await stateBecomes(local, 'closed');
      await back;
      const entry = (await here.fleet.status()).tools.find(
        (t) => t.tool === tool,
      );
      expect(entry?.state).toBe('closed');
      expect(there.state).toBe('closed');
      expect(local.state).toBe('closed');
    } finally {
      client.destroy();
      there.shutdown();
      local.shutdown();
      await away.close();
      await proxy.close();
    }
  }, 15_000);

  it('a hold set while it was away is obeyed when it comes back: the upstream is not run', async () => {
    const prefix = 'away-set:';
    const tool = redis.fresh();
    const operator = await redis.store({ keyPrefix: prefix });
    const proxy = await startTcpProxy(redis.port);
    const log = recordingLogger();
    const away = createRedisBreakerStore({
      url: proxy.url,
      keyPrefix: prefix,
      logger: log.logger,
      probeIntervalMs: 50,
      commandTimeoutMs: 200,
    });
    const breaker = createToolBreaker(tool, { store: away, telemetry: false });
    try {
      expect(await away.connect()).toBe(true);
      const back = log.next('info', /resynchronised/);
      for (const connection of proxy.connections) connection.blackHole();
      await operator.fleet.forceOpen(tool);
      await back;
      // Open at once after the resync (or on the channel, had the resync come before the hold).
      await stateBecomes(breaker, 'open');
      let runs = 0;
      const response = await breaker.execute(() => {
        runs += 1;
        return Promise.resolve(ToolResponse.success('ran'));
      });
      expect(response.status).toBe('error');
      expect(runs).toBe(0);
    } finally {
      breaker.shutdown();
      await away.close();
      await proxy.close();
    }
  }, 15_000);
});
