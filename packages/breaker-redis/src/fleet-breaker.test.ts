import {
  createToolBreaker,
  type StateChange,
  type ToolBreaker,
} from '@candor/breaker';
import { ToolResponse } from '@candor/tools';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  recordingLogger,
  redisInstalled,
} from './__fixtures__/fleet-helpers.ts';
import { createRedisBreakerStore } from './create-redis-breaker-store.ts';
import { type RedisBreakerStore } from './redis-breaker-store.ts';
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

  /**
   * One "process": its own store (own connections, own id) and its own breaker. A loaded machine
   * can hold a reply past the 100 ms default command timeout, which sends a store to its local
   * breaker (by design, and tested in redis-breaker-store-faults.test.ts); these tests are about
   * the fleet, so they give a command a second.
   */
  async function processBreaker(
    tool: string,
    options: { resetTimeoutMs?: number } = {},
    storeOptions: { trialClaimMs?: number } = {},
  ): Promise<ToolBreaker> {
    const store = createRedisBreakerStore({
      url: redis.url,
      commandTimeoutMs: 1_000,
      ...storeOptions,
    });
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
    // The reset is longer than the command timeout, so the first refused calls' claims are
    // answered (or the store falls back, which fails this test) before the trial is due. The
    // claim is long enough that this loop, late on a loaded machine, cannot outlive it: the
    // claimant stops trusting its claim, and the other process starts trusting it, a fifth of
    // it before and after its end on each one's estimate of Redis's clock. With the 25 ms default,
    // the two estimates differed by more than those 5 ms under load, so the other process found
    // the claim lapsed and took the trial in one step (the case docs/fleet.md says may run one
    // call per process); Redis still gave one of them the lease. That case is not this test's.
    const claimed = { trialClaimMs: 5_000 };
    const [a, b] = await Promise.all([
      processBreaker(tool, { resetTimeoutMs: 1_500 }, claimed),
      processBreaker(tool, { resetTimeoutMs: 1_500 }, claimed),
    ]);
    const opened = Promise.all([becomes(a, 'open'), becomes(b, 'open')]);
    for (const breaker of [a, b, a, b, a]) await breaker.execute(down);
    await opened;
    // Calls keep coming while open; each is refused at once, never delayed. The first refused
    // call claims the coming trial; once it is due on Redis's clock, the claimant's next call is
    // the trial (with no claim, the first call that finds it due is).
    const client = createClient({ url: redis.url });
    client.on('error', () => undefined);
    await client.connect();
    let trial: ReturnType<ToolBreaker['admit']> | undefined;
    let holder: ToolBreaker | undefined;
    while (trial === undefined) {
      for (const breaker of [a, b]) {
        const admission = breaker.admit();
        if (admission.admitted) {
          trial = admission;
          holder = breaker;
          break;
        }
      }
      await client.ping();
    }
    client.destroy();
    expect(holder?.state).toBe('half_open');
    // One trial for the fleet: while it is out, every other call anywhere is refused.
    expect([a.admit(), b.admit(), a.admit(), b.admit()]).toMatchObject(
      Array(4).fill({ admitted: false }),
    );
    const closed = Promise.all([becomes(a, 'closed'), becomes(b, 'closed')]);
    if (!trial.admitted) throw new Error('no trial');
    trial.record(ToolResponse.success('recovered'));
    await closed;
    expect((await b.execute(up)).status).toBe('success');
  });

  it('writes no tool arguments or results to Redis, only names and counts', async () => {
    const tool = freshTool();
    const [a, b] = await Promise.all([
      processBreaker(tool),
      processBreaker(tool),
    ]);
    const secretArgs = { apiKey: 'sk-live-ARG-7f3a9c', query: 'QUERY-b81e' };
    const secretResult = 'RESULT-token-ghp_5d2e';
    const opened = Promise.all([becomes(a, 'open'), becomes(b, 'open')]);
    for (const [i, breaker] of [a, b, a, b, a, b].entries()) {
      await breaker.execute(() =>
        Promise.resolve(
          i % 2 === 0
            ? ToolResponse.error(
                'API_ERROR',
                `failed for ${secretArgs.apiKey} ${secretResult}`,
                { details: { args: secretArgs } },
              )
            : ToolResponse.error(
                'NETWORK_ERROR',
                `${secretResult} ${secretArgs.query}`,
              ),
        ),
      );
    }
    await opened;
    const client = createClient({ url: redis.url });
    client.on('error', () => undefined);
    await client.connect();
    const dump: string[] = [];
    for (const key of await client.keys('*')) {
      dump.push(key);
      const type = await client.type(key);
      if (type === 'hash') dump.push(JSON.stringify(await client.hGetAll(key)));
      else if (type === 'string') dump.push(String(await client.get(key)));
      else dump.push(`(${type})`);
    }
    client.destroy();
    const text = dump.join('\n');
    expect(text).toContain(tool);
    for (const secret of [
      'sk-live-ARG-7f3a9c',
      'QUERY-b81e',
      'RESULT-token-ghp_5d2e',
    ]) {
      expect(text).not.toContain(secret);
    }
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
    // The local breaker decides: its window holds at most the 21 successes above, so 25
    // failures put it past 50 % and open it, as without a store.
    for (let i = 0; i < 25; i++) await breaker.execute(down);
    expect(breaker.state).toBe('open');
    await own.stop();
  });
});
