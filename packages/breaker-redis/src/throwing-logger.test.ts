import { once } from 'node:events';
import { createServer } from 'node:net';
import { throwingLogger } from '@candor/hostile-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultRules,
  rawRedisClient,
  redisInstalled,
  viewBecomes,
} from './__fixtures__/fleet-helpers.ts';
import { type FleetRules } from './fleet-circuit.ts';
import { createRedisBreakerStore } from './create-redis-breaker-store.ts';
import { type RedisServer, startRedisServer } from './redis-server.ts';

const quick: FleetRules = { ...defaultRules, minimumCalls: 1 };

describe('RedisBreakerStore with a logger that throws', () => {
  it('falls back to local breakers when Redis refuses the connection (logged at warn)', async () => {
    // A port nothing listens on: one that was just given back.
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const address = probe.address();
    if (address === null || typeof address === 'string') throw new Error();
    probe.close();
    await once(probe, 'close');
    const { logger, attempts } = throwingLogger();
    const store = createRedisBreakerStore({
      url: `redis://127.0.0.1:${String(address.port)}`,
      connectTimeoutMs: 150,
      logger,
    });
    try {
      expect(await store.connect()).toBe(false);
      expect(store.health).toBe('degraded');
      const circuit = store.circuit('refused_tool', quick);
      expect(circuit.admit()).toEqual({ kind: 'local' });
      expect(attempts()).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
    expect(store.health).toBe('closed');
  });

  describe.skipIf(!redisInstalled)('with a real redis-server', () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(async () => {
      await redis.stop();
    });

    it('keeps counting the other tools when one tool’s key is not ours (logged at warn)', async () => {
      const raw = await rawRedisClient(redis.url);
      await raw.set('throwing:window:bad_tool', 'not a hash');
      const { logger, attempts } = throwingLogger();
      const store = createRedisBreakerStore({
        url: redis.url,
        keyPrefix: 'throwing:',
        logger,
      });
      try {
        expect(await store.connect()).toBe(true);
        const bad = store.circuit('bad_tool', quick);
        const good = store.circuit('good_tool', quick);
        const opened = viewBecomes(good, 'open');
        const badLocal = viewBecomes(bad, 'local');
        bad.record(bad.admit(), true);
        good.record(good.admit(), true);
        await Promise.all([opened, badLocal]);
        expect(store.health).toBe('healthy');
        expect(bad.admit()).toEqual({ kind: 'local' });
        expect(attempts()).toBeGreaterThan(0);
      } finally {
        await store.close();
        raw.destroy();
      }
    });
  });
});
