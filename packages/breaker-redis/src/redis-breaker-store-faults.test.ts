import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
import { startLyingServer } from './__fixtures__/lying-server.ts';
import { startTcpProxy } from './__fixtures__/tcp-proxy.ts';
import { type FleetCircuit, type FleetRules } from './fleet-circuit.ts';
import { recordScript } from './fleet-scripts.ts';
import {
  createRedisBreakerStore,
  type RedisBreakerStore,
  type RedisBreakerStoreOptions,
} from './redis-breaker-store.ts';
import { type RedisServer, startRedisServer } from './redis-server.ts';

/** Attacks on what the README and the store's doc comments promise, with a real redis-server. */

const quick: FleetRules = { ...defaultRules, minimumCalls: 1 };

/** `waited`, or a failure as soon as the store logs that it fell back as a whole. */
async function unlessFallback<T>(
  waited: Promise<T>,
  log: ReturnType<typeof recordingLogger>,
): Promise<T> {
  const fellBack = log.next('warn', /unusable/).then(() => {
    throw new Error('the whole store fell back to local breakers');
  });
  return Promise.race([waited, fellBack]);
}

/** Fails the test with the admission's kind when it is not a refusal. */
function refusal(circuit: FleetCircuit) {
  const admission = circuit.admit();
  if (admission.kind !== 'refuse') {
    throw new Error(`expected a refusal, got ${admission.kind}`);
  }
  return admission;
}

describe.skipIf(!redisInstalled)('RedisBreakerStore under faults', () => {
  let redis: RedisServer;
  const stores: RedisBreakerStore[] = [];
  let counter = 0;
  const fresh = (): string => `fault_tool_${String((counter += 1))}`;

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await redis.stop();
  });

  async function store(
    options: RedisBreakerStoreOptions = {},
  ): Promise<RedisBreakerStore> {
    const made = createRedisBreakerStore({ url: redis.url, ...options });
    stores.push(made);
    await made.connect();
    return made;
  }

  it('connect() called again, at once or later, neither falls back nor warns', async () => {
    const log = recordingLogger();
    const s = createRedisBreakerStore({ url: redis.url, logger: log.logger });
    stores.push(s);
    expect(await Promise.all([s.connect(), s.connect()])).toEqual([true, true]);
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
      expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
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
      expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
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
      expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
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
      const s = createRedisBreakerStore({ url: proxy.url, logger: log.logger });
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
      expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
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
      const a = createRedisBreakerStore({ url: own.url, logger: la.logger });
      const b = createRedisBreakerStore({ url: own.url, logger: lb.logger });
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
      const a = createRedisBreakerStore({ url: own.url, logger: la.logger });
      const b = createRedisBreakerStore({ url: own.url, logger: lb.logger });
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
    expect(await raw.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub'])).toBe(2);
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
    expect(Object.keys(window).every((field) => /^[cf]\d+$/.test(field))).toBe(
      true,
    );
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
      expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
      raw.destroy();
    },
  );

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
