import { fork } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { bundleFixture, packageDir } from './__fixtures__/bundle-fixture.ts';
import {
  defaultRules,
  rawRedisClient,
  recordingLogger,
  redisClockPassed,
  redisInstalled,
  viewBecomes,
} from './__fixtures__/fleet-helpers.ts';
import { useRedisFleet } from './__fixtures__/redis-fleet.ts';
import { createRedisBreakerStore } from './create-redis-breaker-store.ts';
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
      // The unanswered lease request gives up after the command timeout (100 ms, plus a few on
      // a quiet machine): local breakers decide. What is asserted is that it gave up before
      // Redis answered (DEBUG SLEEP holds the reply for 1 s) and that the store fell back; how
      // late a loaded machine runs the 100 ms timer is not, so the bound is the sleep itself.
      expect(waited, `${waited.toFixed(0)} ms`).toBeLessThan(1_000);
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

  describe('fails fast and starts without blocking', () => {
    // A connect timeout far longer than any bound below: a store that waited it out fails.
    const slowTimeout = { connectTimeoutMs: 10_000 };

    async function timedConnect(
      options: Parameters<typeof createRedisBreakerStore>[0],
    ): Promise<{ connected: boolean; ms: number; health: string }> {
      const s = redis.track(createRedisBreakerStore(options));
      const started = performance.now();
      const connected = await s.connect();
      return { connected, ms: performance.now() - started, health: s.health };
    }

    it('connect() to a closed port answers false at once (well under its 10 s connect timeout)', async () => {
      const gone = await startRedisServer();
      await gone.kill();
      try {
        const result = await timedConnect({ url: gone.url, ...slowTimeout });
        expect(result).toMatchObject({ connected: false, health: 'degraded' });
        // Measured 2–5 ms on an idle machine; the bound is a backstop for a loaded one.
        expect(result.ms, `${result.ms.toFixed(1)} ms`).toBeLessThan(1_000);
      } finally {
        await gone.stop();
      }
    });

    it.each([
      ['a wrong password', 'not it'],
      ['no password', undefined],
    ])('connect() with %s answers false at once', async (_, password) => {
      const locked = await startRedisServer({ password: 'right one' });
      try {
        const result = await timedConnect({
          url: locked.url,
          ...(password === undefined ? {} : { password }),
          ...slowTimeout,
        });
        expect(result).toMatchObject({
          connected: false,
          health: 'degraded',
        });
        expect(result.ms, `${result.ms.toFixed(1)} ms`).toBeLessThan(1_000);
      } finally {
        await locked.stop();
      }
    });

    it('a store started while Redis is down serves on local breakers, then joins the fleet when Redis answers', async () => {
      const own = await startRedisServer();
      try {
        await own.kill();
        const log = recordingLogger();
        const s = redis.track(
          createRedisBreakerStore({
            url: own.url,
            logger: log.logger,
            ...slowTimeout,
          }),
        );
        // Not awaited before serving: calls go to the local breaker meanwhile.
        const connecting = s.connect();
        const c = s.circuit('late_tool', { ...defaultRules, minimumCalls: 1 });
        expect(c.admit()).toEqual({ kind: 'local' });
        expect(await connecting).toBe(false);
        const joined = log.next('info', /resynchronised/);
        await own.restart();
        await joined;
        expect(s.health).toBe('healthy');
        // It hears the fleet: another process opens the tool, and this one refuses.
        const other = redis.track(createRedisBreakerStore({ url: own.url }));
        expect(await other.connect()).toBe(true);
        const oc = other.circuit('late_tool', {
          ...defaultRules,
          minimumCalls: 1,
        });
        const opened = viewBecomes(c, 'open');
        oc.record(oc.admit(), true);
        await opened;
        expect(c.admit()).toMatchObject({ kind: 'refuse', state: 'open' });
      } finally {
        await own.stop();
      }
    });
  });

  it.each([
    ['Redis is gone', false],
    ['Redis answers', true],
  ])(
    'a process that closes its store exits at once when %s (no timer or socket left)',
    async (_, up) => {
      const own = await startRedisServer();
      const bundle = await bundleFixture('close-and-exit');
      try {
        if (!up) await own.kill();
        const child = fork(bundle.file, [], {
          cwd: packageDir,
          env: { ...process.env, REDIS_URL: own.url, PROBE_MS: '10000' },
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        const exited = once(child, 'exit');
        const [message] = (await Promise.race([
          once(child, 'message'),
          exited.then(() => {
            throw new Error('exited before closing');
          }),
        ])) as [{ connected: boolean; health: string }];
        const closedAt = performance.now();
        expect(message).toEqual({
          type: 'closed',
          connected: up,
          health: 'closed',
        });
        const [code] = (await exited) as [number | null];
        const lingered = performance.now() - closedAt;
        expect(code).toBe(0);
        // Reconnection retries here run up to every 10 s: a timer left behind would show.
        expect(lingered, `${lingered.toFixed(0)} ms`).toBeLessThan(1_000);
      } finally {
        bundle.remove();
        await own.stop();
      }
    },
  );
});
