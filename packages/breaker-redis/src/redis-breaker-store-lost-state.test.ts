import { describe, expect, it } from 'vitest';
import {
  defaultRules,
  rawRedisClient,
  recordingLogger,
  redisInstalled,
  viewBecomes,
} from './__fixtures__/fleet-helpers.ts';
import { useRedisFleet } from './__fixtures__/redis-fleet.ts';

/** The fleet's state lost while Redis stays up: a FLUSHALL, an eviction, an empty replica. */
describe.skipIf(!redisInstalled)(
  'RedisBreakerStore when Redis loses the fleet state',
  () => {
    const redis = useRedisFleet('lost_tool');

    it('FLUSHALL mid-open: within 1 s every process notices, the open circuit is written back, and nobody calls the upstream meanwhile', async () => {
      const name = redis.fresh();
      const rules = { ...defaultRules, minimumCalls: 1 };
      const logs = [0, 1, 2].map(() => recordingLogger());
      const fleet = await Promise.all(
        logs.map((log) =>
          redis.store({ keyPrefix: 'lost:', logger: log.logger }),
        ),
      );
      const circuits = fleet.map((s) => s.circuit(name, rules));
      const opened = Promise.all(circuits.map((c) => viewBecomes(c, 'open')));
      const first = circuits[0];
      if (first === undefined) throw new Error('no circuit');
      first.record(first.admit(), true);
      await opened;
      const openedAt = first.shared?.openedAt;
      const client = await rawRedisClient(redis.url);
      try {
        const noticed = Promise.all(
          logs.map((log) => log.next('warn', /was lost/)),
        );
        const resynced = Promise.all(
          logs.map((log) => log.next('info', /resynchronised after a loss/)),
        );
        const flushed = performance.now();
        await client.flushAll();
        const done = { resynced: false };
        void resynced.then(() => {
          done.resynced = true;
        });
        // Until every process has resynchronised, every call anywhere is still refused.
        let refusals = 0;
        while (!done.resynced) {
          for (const c of circuits) {
            expect(c.admit()).toMatchObject({ kind: 'refuse', state: 'open' });
            refusals += 1;
          }
          await client.ping();
        }
        await noticed;
        const took = performance.now() - flushed;
        // The heartbeat runs every probeIntervalMs (1 s): a backstop bound for a loaded machine.
        expect(
          took,
          `noticed and resynchronised in ${took.toFixed(0)} ms`,
        ).toBeLessThan(2_000);
        expect(refusals).toBeGreaterThan(0);
        // One state again: Redis holds the open circuit, with its original open time.
        const held = JSON.parse(
          String(await client.hGet('lost:states', name)),
        ) as {
          state: string;
          openedAt: number;
        };
        expect(held).toMatchObject({ state: 'open', openedAt });
        for (const c of circuits) {
          expect(c.view).toBe('open');
          expect(c.shared?.openedAt).toBe(openedAt);
        }
        // A process started now starts open.
        const late = await redis.store({ keyPrefix: 'lost:' });
        expect(late.circuit(name, rules).admit()).toMatchObject({
          kind: 'refuse',
          state: 'open',
        });
        // Every key the fleet wrote expires.
        for (const key of await client.keys('lost:*')) {
          expect(await client.pTTL(key), key).toBeGreaterThan(0);
        }
      } finally {
        client.destroy();
      }
    });
  },
);
