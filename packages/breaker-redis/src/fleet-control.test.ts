import {
  createToolBreaker,
  type BreakerOptions,
  type ToolBreaker,
} from '@candor/breaker';
import { ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import {
  admitOnceDue,
  defaultRules,
  rawRedisClient,
  recordingLogger,
  redisClockPassed,
  redisInstalled,
  viewBecomes,
} from './__fixtures__/fleet-helpers.ts';
import { at, useRedisFleet } from './__fixtures__/redis-fleet.ts';
import { FleetKeys } from './fleet-keys.ts';
import { type FleetToolStatus } from './fleet-status.ts';
import { type RedisBreakerStore } from './redis-breaker-store.ts';

const down = () =>
  Promise.resolve(ToolResponse.error('NETWORK_ERROR', 'upstream is down'));

/** Resolves when `breaker`'s state becomes `to` (at once if it is already). */
async function stateBecomes(breaker: ToolBreaker, to: string): Promise<void> {
  if (breaker.state === to) return;
  await new Promise<void>((resolve) => {
    const off = breaker.onStateChange((change) => {
      if (change.to !== to) return;
      off();
      resolve();
    });
  });
}

/** The status of one tool, or a failed test. */
async function statusOf(
  store: RedisBreakerStore,
  tool: string,
): Promise<FleetToolStatus> {
  const found = (await store.fleet.status()).tools.find((t) => t.tool === tool);
  if (found === undefined) throw new Error(`status lists no ${tool}`);
  return found;
}

describe.skipIf(!redisInstalled)('fleet-wide holds (store.fleet)', () => {
  const redis = useRedisFleet('held_tool');

  /** One "process" per breaker: its own store (own connections and id). */
  async function fleetOf(
    tool: string,
    count: number,
    options: BreakerOptions = {},
  ): Promise<{ stores: RedisBreakerStore[]; breakers: ToolBreaker[] }> {
    const stores = await Promise.all(
      Array.from({ length: count }, () => redis.store()),
    );
    const breakers = stores.map((store) =>
      createToolBreaker(tool, { store, telemetry: false, ...options }),
    );
    return { stores, breakers };
  }

  it('forceOpen: every process refuses with the open response and runs no trial, however long it is held', async () => {
    const tool = redis.fresh();
    const { stores, breakers } = await fleetOf(tool, 3, {
      resetTimeoutMs: 50,
    });
    const opened = Promise.all(breakers.map((b) => stateBecomes(b, 'open')));
    const record = await at(stores, 0).fleet.forceOpen(tool);
    expect(record).toMatchObject({ state: 'open', forced: 'open' });
    await opened;
    let runs = 0;
    const run = () => {
      runs += 1;
      return Promise.resolve(ToolResponse.success('ran'));
    };
    for (const breaker of breakers) {
      const response = await breaker.execute(run);
      expect(response).toMatchObject({
        status: 'error',
        errorInfo: {
          code: 'CIRCUIT_OPEN',
          retryAfterMs: 50,
          details: { tool, state: 'open' },
        },
      });
    }
    // Long past the reset timeout on Redis's clock: still refused, and no trial was claimed.
    await redisClockPassed(redis.url, (record.openedAt ?? 0) + 200);
    for (const breaker of breakers) {
      expect((await breaker.execute(run)).status).toBe('error');
      expect(breaker.state).toBe('open');
    }
    const client = await rawRedisClient(redis.url);
    try {
      const lease = new FleetKeys('candor:breaker:').lease(tool);
      expect(await client.exists(lease)).toBe(0);
    } finally {
      client.destroy();
    }
    // A process started now starts held open.
    const late = await fleetOf(tool, 1, { resetTimeoutMs: 50 });
    expect((await at(late.breakers, 0).execute(run)).status).toBe('error');
    expect(runs).toBe(0);

    const closed = Promise.all(breakers.map((b) => stateBecomes(b, 'closed')));
    expect(await at(stores, 1).fleet.release(tool)).toBe(true);
    await closed;
    expect((await at(breakers, 2).execute(run)).status).toBe('success');
    expect(runs).toBe(1);
  });

  it('forceClose: an open circuit closes everywhere, failures past minimumCalls do not reopen it, and after release they do', async () => {
    const tool = redis.fresh();
    const { stores, breakers } = await fleetOf(tool, 2);
    const [a, b] = breakers as [ToolBreaker, ToolBreaker];
    const opened = Promise.all(breakers.map((x) => stateBecomes(x, 'open')));
    for (const breaker of [a, b, a, b, a]) await breaker.execute(down);
    await opened;

    const closed = Promise.all(breakers.map((x) => stateBecomes(x, 'closed')));
    const record = await at(stores, 1).fleet.forceClose(tool);
    expect(record).toMatchObject({ state: 'closed', forced: 'closed' });
    await closed;
    // Ten failures, twice minimumCalls: every call is admitted, and counted.
    let runs = 0;
    const failing = () => {
      runs += 1;
      return down();
    };
    for (let i = 0; i < 10; i += 1) {
      expect((await at(breakers, i % 2).execute(failing)).status).toBe('error');
    }
    expect(runs).toBe(10);
    const store = at(stores, 0);
    // The batches are written in the background; each status read is one round trip.
    let status = await statusOf(store, tool);
    // Until the 10 are counted, or the circuit opened after all (then the test fails below).
    while ((status.window?.calls ?? 0) < 10 && status.state === 'closed') {
      status = await statusOf(store, tool);
    }
    expect(status).toMatchObject({
      state: 'closed',
      forced: 'closed',
      window: { readable: true, calls: 10, failures: 10 },
    });
    expect([a.state, b.state]).toEqual(['closed', 'closed']);

    // Released: closed with an empty window, and the fleet's rules apply again.
    expect(await store.fleet.release(tool)).toBe(true);
    expect((await statusOf(store, tool)).window).toBeUndefined();
    const reopened = Promise.all(breakers.map((x) => stateBecomes(x, 'open')));
    for (const breaker of [a, b, a, b, a]) await breaker.execute(down);
    await reopened;
  });

  it('a trial running when the tool is forced open decides nothing', async () => {
    const tool = redis.fresh();
    const rules = { ...defaultRules, minimumCalls: 1, resetTimeoutMs: 50 };
    const [a, b] = await Promise.all([redis.store(), redis.store()]);
    const ca = a.circuit(tool, rules);
    const cb = b.circuit(tool, rules);
    const opened = Promise.all([ca, cb].map((c) => viewBecomes(c, 'open')));
    ca.record(ca.admit(), true);
    await opened;
    const trial = await admitOnceDue(ca, redis.url);
    expect(trial.kind).toBe('trial');
    await ca.lease();
    await b.fleet.forceOpen(tool);
    // The trial succeeds, but its lease went with the hold: its result is not applied.
    ca.record(trial, false);
    // The result is written on a's connection; a's next command is answered after it.
    const status = await statusOf(a, tool);
    expect(status).toMatchObject({ state: 'open', forced: 'open' });
    expect(ca.admit()).toMatchObject({ kind: 'refuse', state: 'open' });
    expect(cb.admit()).toMatchObject({ kind: 'refuse', state: 'open' });
  });

  it('release removes only a hold: a circuit open by the fleet’s rules stays open', async () => {
    const tool = redis.fresh();
    const rules = { ...defaultRules, minimumCalls: 1 };
    const store = await redis.store();
    const circuit = store.circuit(tool, rules);
    const opened = viewBecomes(circuit, 'open');
    circuit.record(circuit.admit(), true);
    await opened;
    expect(await store.fleet.release(tool)).toBe(false);
    expect(circuit.view).toBe('open');
    expect((await statusOf(store, tool)).state).toBe('open');
    expect(await store.fleet.release(redis.fresh())).toBe(false);
  });

  it('holds outlive a FLUSHALL: the processes holding them write them back, and keep to them meanwhile', async () => {
    const killed = redis.fresh();
    const forced = redis.fresh();
    const logs = [0, 1].map(() => recordingLogger());
    const stores = await Promise.all(
      logs.map((log) =>
        redis.store({ keyPrefix: 'held:', logger: log.logger }),
      ),
    );
    const off = stores.map((s) => s.circuit(killed, defaultRules));
    const on = stores.map((s) => s.circuit(forced, defaultRules));
    const opened = Promise.all(off.map((c) => viewBecomes(c, 'open')));
    const openRecord = await at(stores, 0).fleet.forceOpen(killed);
    const closedRecord = await at(stores, 1).fleet.forceClose(forced);
    await opened;
    const client = await rawRedisClient(redis.url);
    try {
      // Closed stays closed: no change to wait for, so one round trip per look.
      while (!on.every((c) => c.shared?.forced === 'closed')) {
        await client.ping();
      }
      const resynced = Promise.all(
        logs.map((log) => log.next('info', /resynchronised after a loss/)),
      );
      const done = { resynced: false };
      void resynced.then(() => {
        done.resynced = true;
      });
      await client.flushAll();
      let rounds = 0;
      while (!done.resynced) {
        for (const c of off) expect(c.admit().kind).toBe('refuse');
        for (const c of on) expect(c.admit().kind).toBe('run');
        rounds += 1;
        await client.ping();
      }
      expect(rounds).toBeGreaterThan(0);
      const readBack = async (tool: string) =>
        JSON.parse(String(await client.hGet('held:states', tool))) as object;
      expect(await readBack(killed)).toMatchObject({
        state: 'open',
        forced: 'open',
        forcedAt: openRecord.forcedAt,
        by: at(stores, 0).processId,
      });
      expect(await readBack(forced)).toMatchObject({
        state: 'closed',
        forced: 'closed',
        forcedAt: closedRecord.forcedAt,
      });
      // A process started now follows both holds.
      const late = await redis.store({ keyPrefix: 'held:' });
      expect(late.circuit(killed, defaultRules).admit().kind).toBe('refuse');
      expect(late.circuit(forced, defaultRules).shared?.forced).toBe('closed');
      // Every key the fleet wrote expires (a hold lives in the states hash: docs/fleet.md).
      for (const key of await client.keys('held:*')) {
        expect(await client.pTTL(key), key).toBeGreaterThan(0);
      }
    } finally {
      client.destroy();
    }
  });

  it('status: each tool’s state, hold, window counts, trial holder and last transition', async () => {
    const counted = redis.fresh();
    const claimed = redis.fresh();
    const killed = redis.fresh();
    const prefix = 'status:';
    const [a, b] = await Promise.all([
      redis.store({ keyPrefix: prefix }),
      redis.store({ keyPrefix: prefix }),
    ]);
    const windowed = a.circuit(counted, defaultRules);
    windowed.record(windowed.admit(), true);
    windowed.record(windowed.admit(), false);
    const rules = { ...defaultRules, minimumCalls: 1 };
    const claiming = b.circuit(claimed, rules);
    const opened = viewBecomes(claiming, 'open');
    claiming.record(claiming.admit(), true);
    await opened;
    // A refused call claims the coming trial for b.
    expect(claiming.admit().kind).toBe('refuse');
    await claiming.lease();
    await a.fleet.forceOpen(killed);
    let status = await a.fleet.status();
    const entry = (tool: string) => status.tools.find((t) => t.tool === tool);
    while ((entry(counted)?.window?.calls ?? 0) < 2) {
      status = await a.fleet.status();
    }
    expect(status.tools.map((t) => t.tool)).toEqual(
      [counted, claimed, killed].sort(),
    );
    expect(typeof status.generation).toBe('string');
    expect(entry(counted)).toMatchObject({
      state: 'closed',
      window: { readable: true, calls: 2, failures: 1 },
    });
    expect(entry(counted)?.window?.expiresInMs).toBeGreaterThan(0);
    expect(entry(counted)?.forced).toBeUndefined();
    expect(entry(claimed)).toMatchObject({
      state: 'open',
      trial: { kind: 'claim', holder: b.processId },
      record: { by: b.processId, trialBy: b.processId },
    });
    expect(entry(claimed)?.lastTransitionAt).toBeGreaterThan(0);
    // An epoch is Redis's time or one past the tool's last epoch, whichever is later, so a
    // transition and a claim written in the same millisecond put it a step or two ahead.
    expect(entry(claimed)?.lastTransitionAt).toBeLessThanOrEqual(
      status.now + 100,
    );
    expect(entry(killed)).toMatchObject({
      state: 'open',
      forced: 'open',
      record: { by: a.processId },
    });
    expect(entry(killed)?.trial).toBeUndefined();
  });

  it('bad tool names are a TypeError; a closed store rejects, so a switch is never assumed set', async () => {
    const store = await redis.store();
    await expect(store.fleet.forceOpen('')).rejects.toThrow(TypeError);
    await expect(store.fleet.forceClose('x'.repeat(513))).rejects.toThrow(
      /at most 512 characters/,
    );
    await expect(store.fleet.release(42 as unknown as string)).rejects.toThrow(
      /got number/,
    );
    await store.close();
    await expect(store.fleet.forceOpen('anything')).rejects.toThrow(
      /the fleet-wide hold open of "anything" was not written/,
    );
  });
});
