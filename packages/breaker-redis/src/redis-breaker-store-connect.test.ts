import { describe, expect, it } from 'vitest';
import {
  defaultRules,
  rawRedisClient,
  recordingLogger,
  redisClockPassed,
  redisInstalled,
  viewBecomes,
} from './__fixtures__/fleet-helpers.ts';
import { useRedisFleet } from './__fixtures__/redis-fleet.ts';
import { createRedisBreakerStore } from './redis-breaker-store.ts';
import { startRedisServer } from './redis-server.ts';

/** Reaching Redis: passwords, TLS, a Redis that dies or is slow, and bad options. */
describe.skipIf(!redisInstalled)('RedisBreakerStore connecting', () => {
  const redis = useRedisFleet('connect_tool');

  it('passes the password to the server; a wrong one falls back with one warning', async () => {
    const locked = await startRedisServer({ password: 's3cret pass' });
    try {
      const good = createRedisBreakerStore({
        url: locked.url,
        password: 's3cret pass',
      });
      const log = recordingLogger();
      const bad = createRedisBreakerStore({
        url: locked.url,
        password: 'wrong',
        logger: log.logger,
        connectTimeoutMs: 500,
      });
      expect(await good.connect()).toBe(true);
      expect(await bad.connect()).toBe(false);
      expect(bad.health).toBe('degraded');
      expect(bad.circuit('x', defaultRules).admit()).toEqual({ kind: 'local' });
      const warnings = log.lines.filter((line) => line.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(JSON.stringify(log.lines)).not.toContain('s3cret');
      await good.close();
      await bad.close();
    } finally {
      await locked.stop();
    }
  });

  it('falls back when Redis dies (one warning, no call refused by the store) and resyncs when it returns', async () => {
    const own = await startRedisServer();
    try {
      const log = recordingLogger();
      const s = createRedisBreakerStore({ url: own.url, logger: log.logger });
      expect(await s.connect()).toBe(true);
      const rules = { ...defaultRules, minimumCalls: 1 };
      const open = s.circuit('opened_tool', rules);
      const busy = s.circuit('busy_tool', defaultRules);
      const opened = viewBecomes(open, 'open');
      open.record(open.admit(), true);
      await opened;
      const warned = log.next('warn', /unusable/);
      await own.kill();
      await warned;
      // Every call is admitted by the local breaker now, synchronously, however many.
      for (let i = 0; i < 50; i++) {
        const admission = busy.admit();
        expect(admission).toEqual({ kind: 'local' });
        busy.record(admission, true);
      }
      expect(open.admit()).toEqual({ kind: 'local' });
      const back = log.next('info', /resynchronised/);
      await own.restart();
      await back;
      expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
      // The restart lost the open state; this process wrote it back.
      expect(open.view).toBe('open');
      expect(busy.view).toBe('closed');
      expect(s.stats()).toMatchObject({ fallbacks: 1, resyncs: 2 });
      await s.close();
    } finally {
      await own.stop();
    }
  });

  it('a slow Redis never delays a call past the command timeout', async () => {
    const own = await startRedisServer();
    try {
      const log = recordingLogger();
      const s = createRedisBreakerStore({
        url: own.url,
        logger: log.logger,
        commandTimeoutMs: 100,
      });
      expect(await s.connect()).toBe(true);
      const c = s.circuit('slow_tool', {
        ...defaultRules,
        minimumCalls: 1,
        resetTimeoutMs: 1,
      });
      const opened = viewBecomes(c, 'open');
      c.record(c.admit(), true);
      await opened;
      // Due on Redis's clock with a margin far wider than any estimate of it from here.
      await redisClockPassed(own.url, (c.shared?.openedAt ?? 0) + 50);
      const client = await rawRedisClient(own.url);
      const sleeping = client.sendCommand(['DEBUG', 'SLEEP', '1']);
      // No call waits on the store: the call finding the trial due runs it at once, and its
      // lease is taken in the background.
      const started = performance.now();
      expect(c.admit().kind).toBe('trial');
      await c.lease();
      const waited = performance.now() - started;
      // The unanswered lease request gives up after the command timeout: local breakers decide.
      expect(waited).toBeLessThan(100 + 250);
      expect(s.health).toBe('degraded');
      expect(c.admit()).toEqual({ kind: 'local' });
      await sleeping;
      client.destroy();
      await s.close();
    } finally {
      await own.stop();
    }
  }, 15_000);

  it('passes the TLS option to the client: TLS to a plain server fails and falls back', async () => {
    const log = recordingLogger();
    const s = createRedisBreakerStore({
      host: '127.0.0.1',
      port: redis.port,
      tls: { rejectUnauthorized: true },
      connectTimeoutMs: 1_000,
      logger: log.logger,
    });
    // The same server answers plain connections (every other test here): only TLS fails.
    expect(await s.connect()).toBe(false);
    expect(s.health).toBe('degraded');
    expect(s.circuit('tls_tool', defaultRules).admit()).toEqual({
      kind: 'local',
    });
    expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    await s.close();
  });

  it('refuses bad options with a clear error', () => {
    expect(() => createRedisBreakerStore({ commandTimeoutMs: 0 })).toThrow(
      /"commandTimeoutMs" must be a number of ms/,
    );
    expect(() => createRedisBreakerStore({ keyPrefix: '' })).toThrow(
      /"keyPrefix" must be a non-empty string/,
    );
  });
});
