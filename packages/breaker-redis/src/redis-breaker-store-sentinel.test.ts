import { setTimeout as pace } from 'node:timers/promises';
import { createToolBreaker, type ToolBreaker } from '@candor/breaker';
import { ToolResponse } from '@candor/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingLogger } from './__fixtures__/fleet-helpers.ts';
import {
  ask,
  haInstalled,
  pollUntil,
  type SentinelSet,
  startSentinelSet,
} from './__fixtures__/redis-ha.ts';
import { createRedisBreakerStore } from './create-redis-breaker-store.ts';
import { type RedisBreakerStore } from './redis-breaker-store.ts';

const up = () => Promise.resolve(ToolResponse.success('fine'));
const down = () =>
  Promise.resolve(ToolResponse.error('NETWORK_ERROR', 'upstream is down'));

describe.skipIf(!haInstalled)('RedisBreakerStore on Redis Sentinel', () => {
  let set: SentinelSet;
  const stores: RedisBreakerStore[] = [];
  const breakers: ToolBreaker[] = [];

  beforeAll(async () => {
    set = await startSentinelSet();
  }, 120_000);
  afterAll(async () => {
    for (const breaker of breakers) breaker.shutdown();
    await Promise.all(stores.map((store) => store.close()));
    await set.stop();
  }, 60_000);

  function sentinelStore() {
    const log = recordingLogger();
    const store = createRedisBreakerStore({
      sentinel: { name: set.name, sentinelRootNodes: set.sentinelRootNodes },
      logger: log.logger,
      // A backstop: discovery takes several round trips, slow on a loaded machine.
      connectTimeoutMs: 15_000,
    });
    stores.push(store);
    return { store, log };
  }

  function breakerOn(store: RedisBreakerStore, tool: string): ToolBreaker {
    const breaker = createToolBreaker(tool, { store, telemetry: false });
    breakers.push(breaker);
    return breaker;
  }

  it('shares a trip through the primary the sentinels name', async () => {
    const a = sentinelStore();
    const b = sentinelStore();
    expect(await a.store.connect()).toBe(true);
    expect(await b.store.connect()).toBe(true);
    const ba = breakerOn(a.store, 'sentinel_shared');
    const bb = breakerOn(b.store, 'sentinel_shared');
    for (const breaker of [ba, bb, ba, bb, ba]) await breaker.execute(down);
    await pollUntil('both breakers open', () =>
      ba.state === 'open' && bb.state === 'open' ? true : undefined,
    );
    // The record is on the primary the sentinels named.
    const record = await ask(set.primary.port, [
      'HGET',
      'candor:breaker:states',
      'sentinel_shared',
    ]);
    expect(JSON.parse(String(record))).toMatchObject({ state: 'open' });
  }, 60_000);

  it('primary killed mid-run: calls go on, none fails because of the store, the fleet re-forms on the promoted replica', async () => {
    const a = sentinelStore();
    const b = sentinelStore();
    expect(await a.store.connect()).toBe(true);
    expect(await b.store.connect()).toBe(true);
    const tool = 'sentinel_failover';
    const ba = breakerOn(a.store, tool);
    const bb = breakerOn(b.store, tool);
    const statuses = new Map<string, number>();
    let running = true;
    // Two "processes" calling a healthy upstream, one call every 5 ms each, all through failover.
    const caller = async (breaker: ToolBreaker): Promise<void> => {
      while (running) {
        const response = await breaker.execute(up);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        await pace(5);
      }
    };
    const calling = Promise.all([caller(ba), caller(bb)]);
    await pollUntil('calls before the kill', () =>
      (statuses.get('success') ?? 0) > 20 ? true : undefined,
    );
    const resyncsBefore = a.store.stats().resyncs;
    await set.primary.kill();
    // Each store notices, falls back to its local breakers, and resynchronises on the replica
    // once the sentinels have promoted it.
    await pollUntil('the sentinels to promote the replica', async () =>
      (await set.primaryPort()) === set.replica.port ? true : undefined,
    );
    await pollUntil('both stores back on the new primary', () =>
      a.store.health === 'healthy' &&
      b.store.health === 'healthy' &&
      a.store.stats().resyncs > resyncsBefore &&
      b.store.stats().fallbacks > 0
        ? true
        : undefined,
    );
    const callsAtRecovery = statuses.get('success') ?? 0;
    await pollUntil('calls after recovery', () =>
      (statuses.get('success') ?? 0) > callsAtRecovery + 20 ? true : undefined,
    );
    running = false;
    await calling;
    // Every call answered by the healthy upstream; not one failed because Redis failed over.
    expect([...statuses.keys()]).toEqual(['success']);
    expect(a.store.stats().fallbacks).toBeGreaterThan(0);
    expect(
      a.log.lines.some((line) =>
        /fleet state resynchronised|is back/.test(line.msg),
      ),
    ).toBe(true);

    // The fleet re-formed: a trip in one process is seen by the other, through the new primary.
    const tripped = 'sentinel_after_failover';
    const ta = breakerOn(a.store, tripped);
    const tb = breakerOn(b.store, tripped);
    for (const breaker of [ta, tb, ta, tb, ta]) await breaker.execute(down);
    await pollUntil('both breakers open after the failover', () =>
      ta.state === 'open' && tb.state === 'open' ? true : undefined,
    );
    const refused = tb.admit();
    expect(refused.admitted).toBe(false);
    const record = await ask(set.replica.port, [
      'HGET',
      'candor:breaker:states',
      tripped,
    ]);
    expect(JSON.parse(String(record))).toMatchObject({ state: 'open' });
  }, 120_000);
});
