import { describe, expect, it } from 'vitest';
import { createRedisBreakerStore } from './create-redis-breaker-store.ts';
import { freePort } from './redis-server.ts';

const sentinel = {
  name: 'breakers',
  sentinelRootNodes: [{ host: '127.0.0.1', port: 26379 }],
};
const cluster = { rootNodes: [{ url: 'redis://127.0.0.1:7000' }] };

describe('Sentinel and Cluster options', () => {
  it('rejects what cannot go together, naming the option', () => {
    expect(() => createRedisBreakerStore({ sentinel, cluster })).toThrow(
      /"sentinel" and "cluster" cannot both be given/,
    );
    expect(() =>
      createRedisBreakerStore({ sentinel, url: 'redis://127.0.0.1' }),
    ).toThrow(/"url" cannot be given with "sentinel"/);
    expect(() => createRedisBreakerStore({ cluster, port: 6379 })).toThrow(
      /"port" cannot be given with "cluster"/,
    );
    expect(() => createRedisBreakerStore({ cluster, database: 2 })).toThrow(
      /"database" cannot be given with "cluster"/,
    );
  });

  it('rejects a Sentinel or Cluster option that is not one, naming it', () => {
    expect(() =>
      createRedisBreakerStore({ sentinel: { ...sentinel, name: '' } }),
    ).toThrow(TypeError);
    expect(() =>
      createRedisBreakerStore({ sentinel: { ...sentinel, name: '' } }),
    ).toThrow(/"sentinel.name"/);
    expect(() =>
      createRedisBreakerStore({
        sentinel: { ...sentinel, sentinelRootNodes: [] },
      }),
    ).toThrow(/"sentinel.sentinelRootNodes" must be a non-empty array/);
    expect(() =>
      createRedisBreakerStore({ cluster: { rootNodes: [] } }),
    ).toThrow(/"cluster.rootNodes" must be a non-empty array/);
    expect(() =>
      createRedisBreakerStore({ sentinel: null as unknown as typeof sentinel }),
    ).toThrow(/"sentinel" must be an object/);
  });

  it('no sentinel answering: connect() answers false within connectTimeoutMs and close() ends it', async () => {
    const port = await freePort();
    const store = createRedisBreakerStore({
      sentinel: {
        name: 'breakers',
        sentinelRootNodes: [{ host: '127.0.0.1', port }],
      },
      connectTimeoutMs: 300,
    });
    const started = performance.now();
    expect(await store.connect()).toBe(false);
    // Generous: the bound is the option, the rest is a loaded machine.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(store.health).toBe('degraded');
    await store.close();
    expect(store.health).toBe('closed');
  });
});
