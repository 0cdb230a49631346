import {
  createToolBreaker,
  type StateChange,
  type ToolBreaker,
} from '@candor/breaker';
import { ToolResponse } from '@candor/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  recordingLogger,
  redisInstalled,
} from './__fixtures__/fleet-helpers.ts';
import {
  createRedisBreakerStore,
  type RedisBreakerStore,
} from './redis-breaker-store.ts';
import { type RedisServer, startRedisServer } from './redis-server.ts';

const down = () =>
  Promise.resolve(ToolResponse.error('NETWORK_ERROR', 'upstream is down'));
const up = () => Promise.resolve(ToolResponse.success('fine'));

/** Resolves with the first change of `breaker` to `to`. */
async function becomes(
  breaker: ToolBreaker,
  to: StateChange['to'],
): Promise<StateChange> {
  return new Promise((resolve) => {
    const off = breaker.onStateChange((change) => {
      if (change.to !== to) return;
      off();
      resolve(change);
    });
  });
}

let counter = 0;
function freshTool(): string {
  counter += 1;
  return `seam_tool_${counter}`;
}

describe.skipIf(!redisInstalled)('ToolBreaker with a Redis store', () => {
  let redis: RedisServer;
  const stores: RedisBreakerStore[] = [];
  const breakers: ToolBreaker[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const breaker of breakers) breaker.shutdown();
    await Promise.all(stores.map((store) => store.close()));
    await redis.stop();
  });

  /** One "process": its own store (own connections, own id) and its own breaker. */
  async function processBreaker(
    tool: string,
    options: { resetTimeoutMs?: number } = {},
  ): Promise<ToolBreaker> {
    const store = createRedisBreakerStore({ url: redis.url });
    stores.push(store);
    expect(await store.connect()).toBe(true);
    const breaker = createToolBreaker(tool, {
      store,
      telemetry: false,
      ...options,
    });
    breakers.push(breaker);
    return breaker;
  }

  it('opens every breaker on failures no single one saw enough of, and says where it came from', async () => {
    const tool = freshTool();
    const [a, b] = await Promise.all([
      processBreaker(tool),
      processBreaker(tool),
    ]);
    const aOpened = becomes(a, 'open');
    const bOpened = becomes(b, 'open');
    // 3 + 2 failures: below minimumCalls (5) in each process.
    for (const breaker of [a, b, a, b, a]) {
      expect((await breaker.execute(down)).status).toBe('error');
    }
    const [fromA, fromB] = await Promise.all([aOpened, bOpened]);
    expect(fromA).toMatchObject({ from: 'closed', to: 'open' });
    expect(fromB).toMatchObject({ from: 'closed', to: 'open' });
    // Exactly one process decided; the other heard it from the fleet.
    expect([fromA.origin, fromB.origin].sort()).toEqual(['fleet', 'process']);
    const refused = b.admit();
    expect(refused.admitted).toBe(false);
    if (refused.admitted) return;
    expect(refused.response.errorInfo.code).toBe('CIRCUIT_OPEN');
    expect(refused.retryAfterMs).toBeGreaterThan(25_000);
    expect(b.snapshot()).toMatchObject({ state: 'open' });
    expect(b.snapshot().nextAttemptAt).toBeGreaterThan(Date.now());
  });

  it('runs one trial for the fleet; its success closes every breaker', async () => {
    const tool = freshTool();
    const [a, b] = await Promise.all([
      processBreaker(tool, { resetTimeoutMs: 1 }),
      processBreaker(tool, { resetTimeoutMs: 1 }),
    ]);
    const opened = Promise.all([becomes(a, 'open'), becomes(b, 'open')]);
    for (const breaker of [a, b, a, b, a]) await breaker.execute(down);
    await opened;
    const halfOpen = Promise.all([
      becomes(a, 'half_open'),
      becomes(b, 'half_open'),
    ]);
    // The call finding the trial due is refused like any call during a trial, never delayed.
    const asking = a.admit();
    expect(asking).toMatchObject({ admitted: false, retryAfterMs: 0 });
    expect(b.admit()).toMatchObject({ admitted: false });
    await halfOpen;
    // The lease went to one process: its next call is the trial, everyone else is refused.
    const admissions = [a.admit(), b.admit(), a.admit(), b.admit()];
    const admitted = admissions.filter((x) => x.admitted);
    expect(admitted).toHaveLength(1);
    const closed = Promise.all([becomes(a, 'closed'), becomes(b, 'closed')]);
    const trial = admitted[0];
    if (trial?.admitted !== true) throw new Error('no trial');
    trial.record(ToolResponse.success('recovered'));
    await closed;
    expect((await b.execute(up)).status).toBe('success');
  });

  it('decides alone when Redis dies: no call fails because of the store', async () => {
    const own = await startRedisServer();
    const log = recordingLogger();
    const store = createRedisBreakerStore({ url: own.url, logger: log.logger });
    const warned = log.next('warn', /unusable/);
    stores.push(store);
    await store.connect();
    const breaker = createToolBreaker(freshTool(), { store, telemetry: false });
    breakers.push(breaker);
    expect((await breaker.execute(up)).status).toBe('success');
    await own.kill();
    await breaker.execute(up);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => breaker.execute(up)),
    );
    expect(answers.every((answer) => answer.status === 'success')).toBe(true);
    await warned;
    expect(store.health).toBe('degraded');
    expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    // The local breaker decides: five local failures open it, as without a store.
    for (let i = 0; i < 5; i++) await breaker.execute(down);
    expect(breaker.state).toBe('open');
    await own.stop();
  });
});
