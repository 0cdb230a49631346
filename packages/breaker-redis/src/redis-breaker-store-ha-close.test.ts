import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
} from 'vitest';
import {
  type BundledFixture,
  bundleFixture,
  packageDir,
} from './__fixtures__/bundle-fixture.ts';
import {
  haInstalled,
  type RedisClusterSet,
  type SentinelSet,
  startRedisCluster,
  startSentinelSet,
} from './__fixtures__/redis-ha.ts';

interface Message {
  type: string;
  connected?: boolean;
  health?: string;
}

/** The next IPC message of `child`; rejects if it exits first. */
async function nextMessage(
  child: ChildProcess,
  exited: Promise<unknown>,
): Promise<Message> {
  const [message] = (await Promise.race([
    once(child, 'message'),
    exited.then(() => {
      throw new Error('the child exited before it said so');
    }),
  ])) as [Message];
  return message;
}

/** How a child ran: what it said when closed, how it exited, and how long after closing. */
interface ClosedChild {
  readonly connected: boolean | undefined;
  readonly health: string | undefined;
  readonly code: number | null;
  readonly lingeredMs: number;
}

/**
 * Runs the close-and-exit fixture against `env`'s topology. With `beforeClose`, the child
 * connects, waits while `beforeClose` runs (the servers killed), and then closes, after falling
 * back first when `fellBack`.
 */
async function closeAndExit(
  bundle: BundledFixture,
  env: Record<string, string>,
  beforeClose?: {
    run: () => Promise<void>;
    fellBack: boolean;
    failures?: number;
  },
): Promise<ClosedChild> {
  const child = fork(bundle.file, [], {
    cwd: packageDir,
    env: {
      ...process.env,
      ...env,
      // Reconnection and probe timers here would run up to every 10 s: one left behind shows.
      PROBE_MS: '10000',
      // A backstop: discovery takes several round trips, slow on a loaded machine.
      CONNECT_TIMEOUT_MS: '15000',
      ...(beforeClose === undefined ? {} : { CLOSE_ON_MESSAGE: '1' }),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  try {
    if (beforeClose !== undefined) {
      const connected = await nextMessage(child, exited);
      expect(connected).toEqual({ type: 'connected', connected: true });
      await beforeClose.run();
      child.send({
        type: 'close',
        fellBack: beforeClose.fellBack,
        failures: beforeClose.failures ?? 0,
      });
    }
    const closed = await nextMessage(child, exited);
    const closedAt = performance.now();
    expect(closed.type).toBe('closed');
    const [code] = (await exited) as [number | null];
    return {
      connected: closed.connected,
      health: closed.health,
      code,
      lingeredMs: performance.now() - closedAt,
    };
  } finally {
    // A child that failed an expectation above is not left running.
    if (child.exitCode === null && child.signalCode === null) child.kill();
  }
}

/**
 * Issue #30: close() clears every timer and socket at once, so a short-lived process exits as
 * soon as it has closed its store, on Sentinel and Cluster too, whether the servers answer, were
 * gone before it started, or died while it was connected. Each case starts servers of its own.
 */
describe.skipIf(!haInstalled)('a process closing its HA store', () => {
  let bundle: BundledFixture;
  beforeAll(async () => {
    bundle = await bundleFixture('close-and-exit');
  }, 60_000);
  afterAll(() => {
    bundle.remove();
  });

  interface Topology {
    env: Record<string, string>;
    /**
     * Failed reconnections after which @redis/client's default backoff (up to 2.2 s, on a timer
     * its destroy() leaves running) kept a closed process alive: 12 on Sentinel (1.4 s
     * measured), 80 on Cluster (2.2 s measured), whose failures come from more clients.
     */
    backoffFailures: number;
    killAll: () => Promise<void>;
    stop: () => Promise<void>;
  }

  describe.each([
    [
      'Sentinel',
      async (): Promise<Topology> => {
        const set: SentinelSet = await startSentinelSet();
        return {
          env: {
            REDIS_SENTINEL: JSON.stringify({
              name: set.name,
              sentinelRootNodes: set.sentinelRootNodes,
            }),
          },
          backoffFailures: 12,
          killAll: () => set.killAll(),
          stop: () => set.stop(),
        };
      },
    ],
    [
      'Cluster',
      async (): Promise<Topology> => {
        const cluster: RedisClusterSet = await startRedisCluster();
        return {
          env: {
            REDIS_CLUSTER: JSON.stringify({
              rootNodes: cluster.nodes.map((node) => ({ url: node.url })),
            }),
          },
          backoffFailures: 80,
          killAll: () => cluster.killAll(),
          stop: () => cluster.stop(),
        };
      },
    ],
  ])('on %s', (_, start) => {
    let topology: Topology;
    beforeEach(async () => {
      topology = await start();
    }, 120_000);
    afterEach(async () => {
      await topology.stop();
    }, 60_000);

    // A backstop on a busy machine: a timer or socket left behind keeps the child ~1 s or more
    // (reconnect strategies, sentinel scans), and up to the 10 s probe interval.
    const bound = 1_000;

    it('exits at once when the servers answer', async () => {
      const run = await closeAndExit(bundle, topology.env);
      expect(run).toMatchObject({ connected: true, health: 'closed', code: 0 });
      expect(run.lingeredMs, `${run.lingeredMs.toFixed(0)} ms`).toBeLessThan(
        bound,
      );
    }, 60_000);

    it('exits at once when every server was gone before it started', async () => {
      await topology.killAll();
      const run = await closeAndExit(bundle, topology.env);
      expect(run).toMatchObject({
        connected: false,
        health: 'closed',
        code: 0,
      });
      expect(run.lingeredMs, `${run.lingeredMs.toFixed(0)} ms`).toBeLessThan(
        bound,
      );
    }, 60_000);

    it.each([
      ['at once', false, false],
      ['once the store fell back', true, false],
      ['once the client backed off for seconds', true, true],
    ])(
      'exits at once when every server dies after connect and it closes %s',
      async (_, fellBack, backedOff) => {
        const run = await closeAndExit(bundle, topology.env, {
          run: () => topology.killAll(),
          fellBack,
          failures: backedOff ? topology.backoffFailures : 0,
        });
        expect(run).toMatchObject({ health: 'closed', code: 0 });
        expect(run.lingeredMs, `${run.lingeredMs.toFixed(0)} ms`).toBeLessThan(
          bound,
        );
      },
      60_000,
    );
  });
});
