import { setTimeout as pace } from 'node:timers/promises';
import { createToolBreaker, type ToolBreaker } from '@candor/breaker';
import { ToolResponse } from '@candor/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingLogger } from './__fixtures__/fleet-helpers.ts';
import {
  ask,
  haInstalled,
  pollUntil,
  type RedisClusterSet,
  startRedisCluster,
} from './__fixtures__/redis-ha.ts';
import { createRedisBreakerStore } from './create-redis-breaker-store.ts';
import { FleetKeys } from './fleet-keys.ts';
import { type RedisBreakerStore } from './redis-breaker-store.ts';

const up = () => Promise.resolve(ToolResponse.success('fine'));
const down = () =>
  Promise.resolve(ToolResponse.error('NETWORK_ERROR', 'upstream is down'));

describe.skipIf(!haInstalled)('RedisBreakerStore on Redis Cluster', () => {
  let cluster: RedisClusterSet;
  const stores: RedisBreakerStore[] = [];
  const breakers: ToolBreaker[] = [];
  const keys = new FleetKeys('candor:breaker:', { cluster: true });
  let slot: number;

  beforeAll(async () => {
    // 3 primaries, a replica each.
    cluster = await startRedisCluster({ replicas: true });
    const first = cluster.nodes[0]?.port ?? 0;
    slot = Number(await ask(first, ['CLUSTER', 'KEYSLOT', keys.states]));
  }, 120_000);
  afterAll(async () => {
    for (const breaker of breakers) breaker.shutdown();
    await Promise.all(stores.map((store) => store.close()));
    await cluster.stop();
  }, 60_000);

  function clusterStore() {
    const log = recordingLogger();
    const store = createRedisBreakerStore({
      // Every running node: the client discovers the topology from whichever answers.
      cluster: {
        rootNodes: cluster.nodes
          .filter((node) => node.running)
          .map((node) => ({ url: node.url })),
      },
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

  async function trip(
    a: RedisBreakerStore,
    b: RedisBreakerStore,
    tool: string,
  ) {
    const ta = breakerOn(a, tool);
    const tb = breakerOn(b, tool);
    for (const breaker of [ta, tb, ta, tb, ta]) await breaker.execute(down);
    await pollUntil(`both breakers of ${tool} open`, () =>
      ta.state === 'open' && tb.state === 'open' ? true : undefined,
    );
    expect(tb.admit().admitted).toBe(false);
  }

  it('puts every key and the channel of the fleet in one hash slot', async () => {
    const port = cluster.nodes[0]?.port ?? 0;
    const names = [
      keys.states,
      keys.epochs,
      keys.channel,
      keys.window('web_fetch'),
      keys.lease('web_fetch'),
      keys.window('{odd}tool'),
      keys.lease('another:tool'),
    ];
    const slots = await Promise.all(
      names.map(async (name) =>
        Number(await ask(port, ['CLUSTER', 'KEYSLOT', name])),
      ),
    );
    expect(new Set(slots)).toEqual(new Set([slot]));
    // A prefix that already holds a hash tag is kept as it is.
    expect(new FleetKeys('{app}:cb:', { cluster: true }).states).toBe(
      '{app}:cb:states',
    );
    // Without a cluster the names are what they always were.
    expect(new FleetKeys('candor:breaker:').states).toBe(
      'candor:breaker:states',
    );
  });

  it('shares a trip across two stores, held by the primary of the fleet slot', async () => {
    const a = clusterStore();
    const b = clusterStore();
    expect(await a.store.connect()).toBe(true);
    expect(await b.store.connect()).toBe(true);
    await trip(a.store, b.store, 'cluster_shared');
    const primary = await cluster.primaryOf(slot);
    const record = await ask(primary.port, [
      'HGET',
      keys.states,
      'cluster_shared',
    ]);
    expect(JSON.parse(String(record))).toMatchObject({ state: 'open' });
    // The window and lease of the tool were written in the same slot, on the same node.
    expect(Number(await ask(primary.port, ['EXISTS', keys.epochs]))).toBe(1);
  }, 60_000);

  /** The ids of the subscribed connections on each running node. */
  async function subscriptions(): Promise<Map<number, Set<string>>> {
    const found = new Map<number, Set<string>>();
    for (const node of cluster.nodes) {
      if (!node.running) continue;
      const lines = String(await ask(node.port, ['CLIENT', 'LIST'])).split(
        '\n',
      );
      const ids = lines
        .filter((line) => / sub=[1-9]/.test(line))
        .map((line) => /^id=(\d+)/.exec(line)?.[1] ?? '');
      found.set(node.port, new Set(ids));
    }
    return found;
  }

  it("the node carrying a store's subscription killed: a trip announced meanwhile still reaches it", async () => {
    const primary = await cluster.primaryOf(slot);
    // Its replica stays too: the next test fails the primary over to it.
    const spared = [primary.port];
    for (const node of cluster.nodes) {
      const role = (await ask(node.port, ['ROLE'])) as unknown[];
      if (role[0] === 'slave' && Number(role[2]) === primary.port) {
        spared.push(node.port);
      }
    }
    // A store whose subscription is on another node than the fleet slot's primary and its
    // replica, so that its commands are not interrupted: only the announcements it hears are.
    const { a, carrier } = await pollUntil(
      "a store subscribed away from the slot's primary",
      async () => {
        const before = await subscriptions();
        const a = clusterStore();
        expect(await a.store.connect()).toBe(true);
        const after = await subscriptions();
        const port = [...after].find(([node, ids]) =>
          [...ids].some((id) => before.get(node)?.has(id) !== true),
        )?.[0];
        if (port !== undefined && !spared.includes(port)) {
          const carrier = cluster.nodes.find((node) => node.port === port);
          if (carrier !== undefined) return { a, carrier };
        }
        await a.store.close();
        return undefined;
      },
    );
    const b = clusterStore();
    expect(await b.store.connect()).toBe(true);
    const tool = 'cluster_subscription_lost';
    const ta = breakerOn(a.store, tool);
    const tb = breakerOn(b.store, tool);
    await carrier.kill();
    // Only b calls, so only b's batch decides: a can learn of the trip by announcement alone
    // (lost with its subscription), or by resynchronising once its subscription has moved.
    for (let i = 0; i < 5; i++) await tb.execute(down);
    await pollUntil('both breakers open', () =>
      ta.state === 'open' && tb.state === 'open' ? true : undefined,
    );
    expect(ta.admit().admitted).toBe(false);
    // The next test starts on a cluster that has got over this kill.
    await cluster.settled();
  }, 120_000);

  it('primary of the fleet slot killed mid-run: calls go on, none fails because of the store, the fleet re-forms on the promoted replica', async () => {
    const a = clusterStore();
    const b = clusterStore();
    expect(await a.store.connect()).toBe(true);
    expect(await b.store.connect()).toBe(true);
    const ba = breakerOn(a.store, 'cluster_failover');
    const bb = breakerOn(b.store, 'cluster_failover');
    const statuses = new Map<string, number>();
    let running = true;
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
    const old = await cluster.primaryOf(slot);
    await old.kill();
    const promoted = await pollUntil('a replica to take the fleet slot', () =>
      cluster.primaryOf(slot),
    );
    expect(promoted.port).not.toBe(old.port);
    await pollUntil('both stores back on the new primary', () =>
      a.store.health === 'healthy' &&
      b.store.health === 'healthy' &&
      a.store.stats().fallbacks > 0 &&
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
    expect([...statuses.keys()]).toEqual(['success']);
    await trip(a.store, b.store, 'cluster_after_failover');
    const record = await ask(promoted.port, [
      'HGET',
      keys.states,
      'cluster_after_failover',
    ]);
    expect(JSON.parse(String(record))).toMatchObject({ state: 'open' });
  }, 120_000);
});
