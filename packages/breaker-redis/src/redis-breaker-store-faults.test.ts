import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  admitOnceDue,
  defaultRules,
  rawRedisClient,
  recordingLogger,
  redisInstalled,
  viewBecomes,
} from './__fixtures__/fleet-helpers.ts';
import { startLyingServer } from './__fixtures__/lying-server.ts';
import { refusal, useRedisFleet } from './__fixtures__/redis-fleet.ts';
import { startTcpProxy } from './__fixtures__/tcp-proxy.ts';
import { type FleetRules } from './fleet-circuit.ts';
import { recordScript } from './fleet-scripts.ts';
import { createRedisBreakerStore } from './create-redis-breaker-store.ts';
import { type RedisBreakerStore } from './redis-breaker-store.ts';
import { startRedisServer } from './redis-server.ts';

/** Attacks on what the README and the store's doc comments promise about a Redis that fails, with a real redis-server. */

const quick: FleetRules = { ...defaultRules, minimumCalls: 1 };

describe.skipIf(!redisInstalled)(
  'RedisBreakerStore under connection faults',
  () => {
    const redis = useRedisFleet('fault_tool');
    const { store, fresh } = redis;
    const stores = { push: (s: RedisBreakerStore) => redis.track(s) };

    it('connect() called again, at once or later, neither falls back nor warns', async () => {
      const log = recordingLogger();
      // A command timeout a loaded machine cannot miss: connect() failing on a late reply is
      // the connect tests' subject, not this one's.
      const s = createRedisBreakerStore({
        url: redis.url,
        logger: log.logger,
        commandTimeoutMs: 1_000,
      });
      stores.push(s);
      expect(await Promise.all([s.connect(), s.connect()])).toEqual([
        true,
        true,
      ]);
      expect(await s.connect()).toBe(true);
      expect(s.health).toBe('healthy');
      expect(s.stats()).toMatchObject({ fallbacks: 0, resyncs: 1 });
      expect(log.lines).toEqual([]);
      await s.close();
      expect(await s.connect()).toBe(false);
    });

    it('a server that accepts the connection and never answers: connect() gives up, every call is local, close() returns', async () => {
      const swallowed: Socket[] = [];
      const hanging = createServer((socket) => {
        swallowed.push(socket);
        socket.resume();
      });
      hanging.listen(0, '127.0.0.1');
      await once(hanging, 'listening');
      const address = hanging.address();
      if (address === null || typeof address === 'string') throw new Error();
      const log = recordingLogger();
      const s = createRedisBreakerStore({
        url: `redis://127.0.0.1:${String(address.port)}`,
        connectTimeoutMs: 150,
        logger: log.logger,
      });
      expect(await s.connect()).toBe(false);
      // It did reach the server: the hang is the server's, not a refused connection.
      expect(swallowed.length).toBeGreaterThan(0);
      expect(s.health).toBe('degraded');
      const c = s.circuit('hung_tool', quick);
      const admission = c.admit();
      expect(admission).toEqual({ kind: 'local' });
      c.record(admission, true);
      expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
      await s.close();
      expect(s.health).toBe('closed');
      for (const socket of swallowed) socket.destroy();
      hanging.close();
    });

    it('a server that speaks the protocol but answers +OK to everything is never taken for Redis', async () => {
      const liar = await startLyingServer();
      try {
        const log = recordingLogger();
        const s = createRedisBreakerStore({
          url: liar.url,
          logger: log.logger,
          probeIntervalMs: 20,
        });
        expect(await s.connect()).toBe(false);
        expect(s.health).toBe('degraded');
        const c = s.circuit(fresh(), quick);
        expect(c.admit()).toEqual({ kind: 'local' });
        // A probe finds the connections ready and asks again: still not Redis.
        await log.next('debug', /still unusable/);
        expect(s.health).toBe('degraded');
        expect(c.admit()).toEqual({ kind: 'local' });
        expect(s.stats().resyncs).toBe(0);
        expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(
          1,
        );
        await s.close();
      } finally {
        await liar.close();
      }
    });

    it('a connection a network black-holes mid-life: falls back at the first unanswered command, then reconnects', async () => {
      const proxy = await startTcpProxy(redis.port);
      try {
        const log = recordingLogger();
        const s = createRedisBreakerStore({
          url: proxy.url,
          logger: log.logger,
          commandTimeoutMs: 100,
        });
        expect(await s.connect()).toBe(true);
        const made = proxy.connections.length;
        const c = s.circuit(fresh(), defaultRules);
        // Both connections stay open and answer nothing, as after a NAT or load balancer forgot them.
        for (const connection of proxy.connections) connection.blackHole();
        const warned = log.next('warn', /unusable/);
        c.record(c.admit(), true);
        await warned;
        expect(c.admit()).toEqual({ kind: 'local' });
        // Nothing resets the dead socket: only a new connection brings the store back.
        const back = log.next('info', /resynchronised/);
        await back;
        expect(proxy.connections.length).toBeGreaterThan(made);
        expect(s.health).toBe('healthy');
        expect(c.admit()).toEqual({ kind: 'run' });
        expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(
          1,
        );
        await s.close();
      } finally {
        await proxy.close();
      }
    }, 10_000);

    it('close() against a black-holed connection with outcomes pending: returns, and connects no more', async () => {
      const proxy = await startTcpProxy(redis.port);
      try {
        const s = createRedisBreakerStore({ url: proxy.url });
        expect(await s.connect()).toBe(true);
        const c = s.circuit(fresh(), defaultRules);
        for (const connection of proxy.connections) connection.blackHole();
        const made = proxy.connections.length;
        c.record(c.admit(), true);
        // The last batch is bounded by the command timeout; its timeout must not reconnect.
        await s.close();
        expect(s.health).toBe('closed');
        await proxy.drain();
        // Only the drain's own connection was added.
        expect(proxy.connections.length).toBe(made + 1);
      } finally {
        await proxy.close();
      }
    });

    it('a pub/sub connection black-holed mid-life: noticed by its heartbeat, and the fleet heard again', async () => {
      const proxy = await startTcpProxy(redis.port);
      try {
        const log = recordingLogger();
        const s = createRedisBreakerStore({
          url: proxy.url,
          logger: log.logger,
          keyPrefix: 'silent-sub:',
          probeIntervalMs: 50,
        });
        const other = await store({ keyPrefix: 'silent-sub:' });
        expect(await s.connect()).toBe(true);
        const name = fresh();
        const c = s.circuit(name, quick);
        const subscriber = proxy.connections.filter((connection) =>
          connection.hasSent('SUBSCRIBE'),
        );
        expect(subscriber).toHaveLength(1);
        subscriber[0]?.blackHole();
        // Opened elsewhere while this process hears nothing, and writes nothing for that tool.
        const oc = other.circuit(name, quick);
        const openedThere = viewBecomes(oc, 'open');
        oc.record(oc.admit(), true);
        await openedThere;
        await viewBecomes(c, 'open');
        expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(
          1,
        );
        expect(s.health).toBe('healthy');
        await s.close();
      } finally {
        await proxy.close();
      }
    }, 10_000);

    it('Redis killed (SIGKILL) while a batch of outcomes is on the wire: one warning, then counted again after the restart', async () => {
      const own = await startRedisServer();
      const proxy = await startTcpProxy(own.port);
      try {
        const log = recordingLogger();
        const s = createRedisBreakerStore({
          url: proxy.url,
          logger: log.logger,
        });
        expect(await s.connect()).toBe(true);
        const name = fresh();
        const c = s.circuit(name, { ...defaultRules, minimumCalls: 3 });
        const onWire = proxy.sent(recordScript.sha);
        const warned = log.next('warn', /unusable/);
        c.record(c.admit(), true);
        await onWire;
        await own.kill();
        await warned;
        expect(c.admit()).toEqual({ kind: 'local' });
        const back = log.next('info', /resynchronised/);
        await own.restart();
        await back;
        // The lost batch is gone (a restart loses windows), and the store counts anew.
        const opened = viewBecomes(c, 'open');
        for (let i = 0; i < 3; i++) c.record(c.admit(), true);
        await opened;
        const raw = await rawRedisClient(own.url);
        const held = await raw.hGet('candor:breaker:states', name);
        raw.destroy();
        expect(JSON.parse(held ?? '{}')).toMatchObject({
          state: 'open',
          calls: 3,
          failures: 3,
        });
        expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(
          1,
        );
        await s.close();
      } finally {
        await proxy.close();
        await own.stop();
      }
    });

    it('Redis killed during a trial and restarted empty: no second trial before the first lease would have run out, and epochs still grow', async () => {
      const own = await startRedisServer();
      try {
        const rules = { ...quick, resetTimeoutMs: 1, leaseMs: 20_000 };
        const la = recordingLogger();
        const lb = recordingLogger();
        // A command timeout a loaded machine cannot miss on the way up (the restart is the fault).
        const a = createRedisBreakerStore({
          url: own.url,
          logger: la.logger,
          commandTimeoutMs: 1_000,
        });
        const b = createRedisBreakerStore({
          url: own.url,
          logger: lb.logger,
          commandTimeoutMs: 1_000,
        });
        expect(await a.connect()).toBe(true);
        expect(await b.connect()).toBe(true);
        const name = fresh();
        const ca = a.circuit(name, rules);
        const cb = b.circuit(name, rules);
        const opened = viewBecomes(cb, 'open');
        ca.record(ca.admit(), true);
        await opened;
        const halfOpen = viewBecomes(cb, 'half_open');
        const trial = await admitOnceDue(ca, own.url);
        expect(trial.kind).toBe('trial');
        await ca.lease();
        await halfOpen;
        const before = cb.shared;
        if (before?.leaseAt === undefined) throw new Error('no lease seen');
        const leaseEnd = before.leaseAt + rules.leaseMs;
        // The trial is out; Redis dies and comes back with nothing.
        const back = Promise.all([
          la.next('info', /resynchronised/),
          lb.next('info', /resynchronised/),
        ]);
        await own.restart();
        await back;
        // Every process may ask for the trial now: none may get one while the first could run.
        for (const circuit of [ca, cb]) {
          const refused = refusal(circuit);
          expect(refused.state).toBe('open');
          expect(refused.retryAfterMs).toBeGreaterThan(rules.leaseMs - 5_000);
          expect(circuit.shared?.epoch).toBeGreaterThan(before.epoch);
          expect(
            (circuit.shared?.openedAt ?? 0) + rules.resetTimeoutMs,
          ).toBeGreaterThanOrEqual(leaseEnd);
        }
        await a.close();
        await b.close();
      } finally {
        await own.stop();
      }
    });

    it('Redis restarted with its data (AOF): the trial out before the crash still decides for everyone', async () => {
      const own = await startRedisServer({
        args: ['--appendonly', 'yes', '--appendfsync', 'always'],
      });
      try {
        const rules = { ...quick, resetTimeoutMs: 1, leaseMs: 20_000 };
        const la = recordingLogger();
        const lb = recordingLogger();
        // A command timeout a loaded machine cannot miss on the way up (the restart is the fault).
        const a = createRedisBreakerStore({
          url: own.url,
          logger: la.logger,
          commandTimeoutMs: 1_000,
        });
        const b = createRedisBreakerStore({
          url: own.url,
          logger: lb.logger,
          commandTimeoutMs: 1_000,
        });
        expect(await a.connect()).toBe(true);
        expect(await b.connect()).toBe(true);
        const name = fresh();
        const ca = a.circuit(name, rules);
        const cb = b.circuit(name, rules);
        const opened = viewBecomes(cb, 'open');
        ca.record(ca.admit(), true);
        await opened;
        const halfOpen = viewBecomes(cb, 'half_open');
        const trial = await admitOnceDue(ca, own.url);
        expect(trial.kind).toBe('trial');
        await ca.lease();
        await halfOpen;
        const epochBefore = cb.shared?.epoch ?? Infinity;
        const back = Promise.all([
          la.next('info', /resynchronised/),
          lb.next('info', /resynchronised/),
        ]);
        await own.restart();
        await back;
        // The lease came back with the data: the other process still waits.
        expect(cb.shared?.state).toBe('half_open');
        expect(refusal(cb).state).toBe('half_open');
        const closed = viewBecomes(cb, 'closed');
        ca.record(trial, false);
        await closed;
        expect(cb.shared?.epoch).toBeGreaterThan(epochBefore);
        expect(cb.admit()).toEqual({ kind: 'run' });
        await a.close();
        await b.close();
      } finally {
        await own.stop();
      }
    });

    it('the pub/sub connection lost while the command connection stays: falls back, resyncs, and hears the fleet again', async () => {
      const own = await startRedisServer();
      const log = recordingLogger();
      const otherLog = recordingLogger();
      const name = fresh();
      const s = createRedisBreakerStore({ url: own.url, logger: log.logger });
      const other = createRedisBreakerStore({
        url: own.url,
        logger: otherLog.logger,
      });
      expect(await s.connect()).toBe(true);
      expect(await other.connect()).toBe(true);
      const c = s.circuit(name, quick);
      const raw = await rawRedisClient(own.url);
      const warned = log.next('warn', /unusable/);
      const back = Promise.all([
        log.next('info', /resynchronised/),
        otherLog.next('info', /resynchronised/),
      ]);
      // Both subscriber connections (this store's and the other's); the command ones stay.
      expect(await raw.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub'])).toBe(
        2,
      );
      await warned;
      await back;
      // Opened by another process and heard only through the channel: it resubscribed.
      const heard = viewBecomes(c, 'open');
      const oc = other.circuit(name, quick);
      oc.record(oc.admit(), true);
      await heard;
      expect(c.shared?.by).toBe(other.processId);
      raw.destroy();
      await s.close();
      await other.close();
      await own.stop();
    });
  },
);
