import { describe, expect, it, vi } from 'vitest';
import {
  defaultRules,
  redisInstalled,
  viewBecomes,
} from './__fixtures__/fleet-helpers.ts';
import { refusal, useRedisFleet } from './__fixtures__/redis-fleet.ts';
import { type FleetRules } from './fleet-circuit.ts';

/** Clock skew and steps, and many circuits at once, with a real redis-server. */

const quick: FleetRules = { ...defaultRules, minimumCalls: 1 };

describe.skipIf(!redisInstalled)('RedisBreakerStore clocks and scale', () => {
  const redis = useRedisFleet('fault_tool');
  const { store, fresh } = redis;

  it.each([
    ['ahead of', 3_600_000],
    ['behind', -3_600_000],
  ])(
    'a process clock an hour %s Redis: the circuit waits the reset timeout on Redis’s clock',
    async (_, skew) => {
      const real = Date.now.bind(Date);
      const spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + skew);
      try {
        const name = fresh();
        const s = await store({ keyPrefix: 'skew:' });
        const c = s.circuit(name, quick);
        const opened = viewBecomes(c, 'open');
        c.record(c.admit(), true);
        await opened;
        const refused = refusal(c);
        expect(refused.state).toBe('open');
        expect(refused.retryAfterMs).toBeGreaterThan(
          quick.resetTimeoutMs - 5_000,
        );
        expect(refused.retryAfterMs).toBeLessThanOrEqual(quick.resetTimeoutMs);
      } finally {
        spy.mockRestore();
      }
    },
  );

  it.each([
    ['back', -3_600_000],
    ['forward', 3_600_000],
  ])(
    'the process’s wall clock stepped an hour %s after the circuit opened: it still waits the reset timeout',
    async (_, step) => {
      const name = fresh();
      const s = await store({ keyPrefix: 'step:' });
      const c = s.circuit(name, quick);
      const opened = viewBecomes(c, 'open');
      c.record(c.admit(), true);
      await opened;
      // An NTP step or a restored VM snapshot, after the store last heard from Redis.
      const real = Date.now.bind(Date);
      const spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + step);
      try {
        const refused = refusal(c);
        expect(refused.state).toBe('open');
        expect(refused.retryAfterMs).toBeGreaterThan(
          quick.resetTimeoutMs - 5_000,
        );
        expect(refused.retryAfterMs).toBeLessThanOrEqual(quick.resetTimeoutMs);
      } finally {
        spy.mockRestore();
      }
    },
  );

  it('many circuits at once: 500 tools opened by one batch, heard by another process', async () => {
    const names = Array.from({ length: 500 }, () => fresh());
    // No heartbeat in the count below; what is tested is one call, not how fast a loaded
    // machine runs it.
    const a = await store({
      keyPrefix: 'many:',
      probeIntervalMs: 60_000,
      commandTimeoutMs: 2_000,
    });
    const b = await store({ keyPrefix: 'many:' });
    const ours = names.map((name) => a.circuit(name, quick));
    const theirs = names.map((name) => b.circuit(name, quick));
    const heard = Promise.all(theirs.map((c) => viewBecomes(c, 'open')));
    const sent = a.stats().commands;
    for (const c of ours) c.record(c.admit(), true);
    await heard;
    // One script call for all of them (two if the server had to be sent the script).
    expect(a.stats().commands - sent).toBeLessThanOrEqual(2);
    expect(a.health).toBe('healthy');
    expect(theirs.every((c) => c.admit().kind === 'refuse')).toBe(true);
  });
});
