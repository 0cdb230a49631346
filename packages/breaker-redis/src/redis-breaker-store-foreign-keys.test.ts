import { describe, expect, it } from 'vitest';
import {
  admitOnceDue,
  defaultRules,
  rawRedisClient,
  recordingLogger,
  redisClockPassed,
  redisInstalled,
  redisNow,
  viewBecomes,
} from './__fixtures__/fleet-helpers.ts';
import { unlessFallback, useRedisFleet } from './__fixtures__/redis-fleet.ts';
import { type FleetRules } from './fleet-circuit.ts';

/** Keys and values under the prefix that the scripts did not write, with a real redis-server. */

const quick: FleetRules = { ...defaultRules, minimumCalls: 1 };

describe.skipIf(!redisInstalled)(
  "RedisBreakerStore with someone else's keys under its prefix",
  () => {
    const redis = useRedisFleet('fault_tool');
    const { store, fresh } = redis;

    it('someone else’s key where a tool’s window goes: that tool alone falls back, the batch’s other tools are counted', async () => {
      const log = recordingLogger();
      const bad = fresh();
      const good = fresh();
      const raw = await rawRedisClient(redis.url);
      await raw.set(`foreign:window:${bad}`, 'not a hash');
      const s = await store({ keyPrefix: 'foreign:', logger: log.logger });
      const cBad = s.circuit(bad, quick);
      const cGood = s.circuit(good, quick);
      // Both in one batch.
      const opened = viewBecomes(cGood, 'open');
      const badLocal = viewBecomes(cBad, 'local');
      cBad.record(cBad.admit(), true);
      cGood.record(cGood.admit(), true);
      await unlessFallback(Promise.all([opened, badLocal]), log);
      expect(s.health).toBe('healthy');
      expect(cBad.admit()).toEqual({ kind: 'local' });
      expect(await raw.get(`foreign:window:${bad}`)).toBe('not a hash');
      expect(log.lines.map((line) => line.level)).toEqual(['warn']);
      expect(log.lines[0]?.msg).toMatch(/not ours/);
      raw.destroy();
    });

    it('junk fields and counts in a tool’s window are dropped, not counted, and do not stop the batch', async () => {
      const log = recordingLogger();
      const name = fresh();
      const marker = fresh();
      const rules = { ...defaultRules, minimumCalls: 3 };
      const bucketMs = rules.windowMs / rules.buckets;
      const raw = await rawRedisClient(redis.url);
      const id = Math.floor((await redisNow(raw)) / bucketMs);
      const key = `junk:window:${name}`;
      // Counts HINCRBY cannot add to (in this bucket and the next, should it roll over), floats,
      // a future bucket, foreign field names. Counted, they would open the circuit.
      for (const bucket of [id, id + 1]) {
        await raw.hSet(key, `c${String(bucket)}`, 'many');
        await raw.hSet(key, `f${String(bucket)}`, ' 7');
      }
      await raw.hSet(key, `c${String(id - 1)}`, '4.5');
      await raw.hSet(key, `f${String(id - 1)}`, '4.5');
      await raw.hSet(key, `c${String(id + 100)}`, '50');
      await raw.hSet(key, `f${String(id + 100)}`, '50');
      await raw.hSet(key, 'x1', '9');
      await raw.hSet(key, 'c', '9');
      const s = await store({ keyPrefix: 'junk:', logger: log.logger });
      const c = s.circuit(name, rules);
      const m = s.circuit(marker, quick);
      // One batch: the marker opens, so the script has run for both.
      const opened = viewBecomes(m, 'open');
      c.record(c.admit(), true);
      m.record(m.admit(), true);
      await unlessFallback(opened, log);
      expect(c.view).toBe('closed');
      const window = await raw.hGetAll(key);
      expect(Object.keys(window)).toHaveLength(2);
      expect(
        Object.keys(window).every((field) => /^[cf]\d+$/.test(field)),
      ).toBe(true);
      expect(Object.values(window)).toEqual(['1', '1']);
      expect(s.health).toBe('healthy');
      expect(log.lines).toEqual([]);
      raw.destroy();
    });

    it('a well-formed foreign "closed" record does not freeze the tool: outcomes still count', async () => {
      const name = fresh();
      const raw = await rawRedisClient(redis.url);
      await raw.hSet(
        'closed-rec:states',
        name,
        JSON.stringify({ state: 'closed', epoch: 5 }),
      );
      const s = await store({ keyPrefix: 'closed-rec:' });
      const c = s.circuit(name, quick);
      expect(c.view).toBe('closed');
      const opened = viewBecomes(c, 'open');
      c.record(c.admit(), true);
      await opened;
      expect(c.shared?.epoch).toBeGreaterThan(5);
      raw.destroy();
    });

    it.each([
      ['a string without expiry', 'string'],
      ['a hash', 'hash'],
    ])(
      'someone else’s lease key (%s) does not keep the fleet from its trial',
      async (_, kind) => {
        const name = fresh();
        const raw = await rawRedisClient(redis.url);
        const key = `foreign-lease:lease:${name}`;
        if (kind === 'string') await raw.set(key, 'not a lease');
        else await raw.hSet(key, 'holder', 'nobody');
        const s = await store({ keyPrefix: 'foreign-lease:' });
        const c = s.circuit(name, { ...quick, resetTimeoutMs: 1 });
        const opened = viewBecomes(c, 'open');
        c.record(c.admit(), true);
        await opened;
        expect((await admitOnceDue(c, redis.url)).kind).toBe('trial');
        await c.lease();
        // The server's record, not this process's own view of the trial it started.
        const held = await raw.hGet('foreign-lease:states', name);
        expect(JSON.parse(String(held))).toMatchObject({
          state: 'half_open',
          by: s.processId,
        });
        expect(await raw.pTTL(key)).toBeGreaterThan(0);
        raw.destroy();
      },
    );

    it('a state that turns to garbage as the trial starts: that tool falls back, the store stays healthy', async () => {
      const log = recordingLogger();
      const name = fresh();
      const other = fresh();
      const rules = { ...quick, resetTimeoutMs: 1 };
      const s = await store({ keyPrefix: 'trial-junk:', logger: log.logger });
      const c = s.circuit(name, rules);
      const healthy = s.circuit(other, rules);
      const opened = viewBecomes(c, 'open');
      c.record(c.admit(), true);
      await opened;
      const raw = await rawRedisClient(redis.url);
      await raw.hSet('trial-junk:states', name, '{"state":"open","epoch":1}');
      // Due with a margin far wider than this process's estimate of Redis's clock can be off.
      await redisClockPassed(redis.url, (c.shared?.openedAt ?? 0) + 50);
      // The call finding the trial due runs it; the store's answer to its lease is garbage.
      expect(c.admit().kind).toBe('trial');
      await c.lease();
      expect(s.health).toBe('healthy');
      expect(c.admit()).toEqual({ kind: 'local' });
      expect(healthy.admit()).toEqual({ kind: 'run' });
      expect(log.lines.map((line) => line.level)).toEqual(['warn']);
      expect(await raw.exists(`trial-junk:lease:${name}`)).toBe(0);
      raw.destroy();
    });

    it.each(['states', 'epochs'])(
      'the %s key of the wrong type: every tool is local with one warning, and the store comes back once it is fixed',
      async (key) => {
        const log = recordingLogger();
        const raw = await rawRedisClient(redis.url);
        const prefix = `wrong-type-${key}:`;
        await raw.set(`${prefix}${key}`, 'a string');
        const s = await store({
          keyPrefix: prefix,
          logger: log.logger,
          probeIntervalMs: 20,
        });
        expect(s.health).toBe('degraded');
        const c = s.circuit(fresh(), quick);
        expect(c.admit()).toEqual({ kind: 'local' });
        const back = log.next('info', /resynchronised/);
        await raw.del(`${prefix}${key}`);
        await back;
        expect(c.admit()).toEqual({ kind: 'run' });
        expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(
          1,
        );
        raw.destroy();
      },
    );
  },
);
