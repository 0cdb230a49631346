import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import {
  findRedisServer,
  freePort,
  type RedisServer,
  startRedisServer,
} from '../redis-server.ts';

/** Whether `redis-server --sentinel` and `redis-cli --cluster` can run here. */
export const haInstalled =
  findRedisServer() !== undefined &&
  spawnSync('redis-cli', ['--version'], { encoding: 'utf8' }).status === 0;
if (!haInstalled) {
  process.stderr.write(
    'redis-server or redis-cli is not installed: the @candor/breaker-redis Sentinel and Cluster tests are skipped (apt-get install redis-server)\n',
  );
}

/**
 * Calls `check` every `everyMs` until it answers something other than `undefined`, and resolves
 * with that; rejects after `timeoutMs` (a backstop: failovers take seconds on a busy machine).
 */
export async function pollUntil<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 60_000, everyMs = 50 } = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    let found: T | undefined;
    try {
      found = await check();
    } catch {
      found = undefined;
    }
    if (found !== undefined) return found;
    if (performance.now() > deadline) {
      throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** One command to a node, on a connection of its own; errors reject. */
export async function ask(port: number, args: string[]): Promise<unknown> {
  const client = createClient({
    socket: { host: '127.0.0.1', port, reconnectStrategy: false },
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    client.destroy();
  }
}

/** A field of `INFO <section>` of a node. */
async function info(
  port: number,
  section: string,
  field: string,
): Promise<string | undefined> {
  const text = String(await ask(port, ['INFO', section]));
  const line = text.split(/\r?\n/).find((l) => l.startsWith(`${field}:`));
  return line?.slice(field.length + 1);
}

/** A Sentinel-monitored primary with one replica and three sentinels. */
export interface SentinelSet {
  readonly name: string;
  readonly primary: RedisServer;
  readonly replica: RedisServer;
  readonly sentinelRootNodes: { host: string; port: number }[];
  /** The port the sentinels name as the primary now. */
  primaryPort(): Promise<number>;
  /** Kills every server and sentinel at once (SIGKILL), as a lost network would look. */
  killAll(): Promise<void>;
  stop(): Promise<void>;
}

async function startSentinel(
  name: string,
  primaryPort: number,
): Promise<{ port: number; child: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'candor-sentinel-'));
  const port = await freePort();
  const conf = join(dir, 'sentinel.conf');
  // Small timeouts so a failover takes about a second, not half a minute.
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
      `sentinel down-after-milliseconds ${name} 500`,
      `sentinel failover-timeout ${name} 5000`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'),
  );
  // Debian's redis-server runs as a sentinel with --sentinel: no redis-sentinel package needed.
  const child = spawn('redis-server', [conf, '--sentinel'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('+monitor master')) resolve();
    });
    child.once('exit', () => {
      reject(new Error(`sentinel exited before it was ready:\n${output}`));
    });
  });
  return { port, child, dir };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/**
 * Starts a primary, a replica in sync with it and three sentinels (quorum 2) that know each
 * other and the replica, so that killing the primary promotes the replica.
 */
export async function startSentinelSet(name = 'fleet'): Promise<SentinelSet> {
  const primary = await startRedisServer({
    args: ['--repl-diskless-sync-delay', '0'],
  });
  const replica = await startRedisServer({
    args: ['--replicaof', '127.0.0.1', String(primary.port)],
  });
  await pollUntil('the replica to sync', async () =>
    (await info(replica.port, 'replication', 'master_link_status')) === 'up'
      ? true
      : undefined,
  );
  const sentinels = await Promise.all(
    [0, 1, 2].map(() => startSentinel(name, primary.port)),
  );
  // A failover needs a majority of sentinels that know each other, and a known replica.
  for (const sentinel of sentinels) {
    await pollUntil(
      'the sentinels to know each other and the replica',
      async () => {
        const peers = (await ask(sentinel.port, [
          'SENTINEL',
          'SENTINELS',
          name,
        ])) as unknown[];
        const replicas = (await ask(sentinel.port, [
          'SENTINEL',
          'REPLICAS',
          name,
        ])) as unknown[];
        return peers.length >= 2 && replicas.length >= 1 ? true : undefined;
      },
    );
  }
  return {
    name,
    primary,
    replica,
    sentinelRootNodes: sentinels.map((s) => ({
      host: '127.0.0.1',
      port: s.port,
    })),
    primaryPort: async () => {
      const addr = (await ask(sentinels[0]?.port ?? 0, [
        'SENTINEL',
        'GET-MASTER-ADDR-BY-NAME',
        name,
      ])) as string[];
      return Number(addr[1]);
    },
    killAll: async () => {
      await Promise.all([
        ...sentinels.map((s) => stopChild(s.child)),
        primary.kill(),
        replica.kill(),
      ]);
    },
    stop: async () => {
      await Promise.all(sentinels.map((s) => stopChild(s.child)));
      for (const s of sentinels)
        rmSync(s.dir, { recursive: true, force: true });
      await Promise.all([primary.stop(), replica.stop()]);
    },
  };
}

/** A cluster of three primaries (each with a replica when asked). */
export interface RedisClusterSet {
  readonly nodes: RedisServer[];
  /** The running node that serves `slot` as a primary now. */
  primaryOf(slot: number): Promise<RedisServer>;
  /** Resolves once every running node says the cluster is ok and no failed node holds slots. */
  settled(): Promise<void>;
  /** Kills every node at once (SIGKILL). */
  killAll(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts 3 cluster primaries (and a replica per primary when `replicas`), slots assigned. */
export async function startRedisCluster({
  replicas = false,
} = {}): Promise<RedisClusterSet> {
  const count = replicas ? 6 : 3;
  const nodes: RedisServer[] = [];
  for (let i = 0; i < count; i++) {
    nodes.push(
      await startRedisServer({
        args: [
          '--cluster-enabled',
          'yes',
          // An explicit bus port: the default (port + 10000) may not exist for a high port.
          '--cluster-port',
          String(await freePort()),
          '--cluster-node-timeout',
          '500',
          // A replica syncs at once, and may take over however long it was cut off.
          '--repl-diskless-sync-delay',
          '0',
          '--cluster-replica-validity-factor',
          '0',
        ],
      }),
    );
  }
  const created = spawnSync(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...nodes.map((node) => `127.0.0.1:${node.port}`),
      '--cluster-replicas',
      replicas ? '1' : '0',
      '--cluster-yes',
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (created.status !== 0) {
    await Promise.all(nodes.map((node) => node.stop()));
    throw new Error(
      `redis-cli --cluster create failed:\n${created.stdout}\n${created.stderr}`,
    );
  }
  for (const node of nodes) {
    await pollUntil('every node to see the cluster ok', async () =>
      (await info(node.port, 'cluster', 'cluster_enabled')) === '1' &&
      String(await ask(node.port, ['CLUSTER', 'INFO'])).includes(
        'cluster_state:ok',
      )
        ? true
        : undefined,
    );
    // A replica that never synced would not take over from its primary.
    if ((await info(node.port, 'replication', 'role')) === 'slave') {
      await pollUntil('every replica to sync', async () =>
        (await info(node.port, 'replication', 'master_link_status')) === 'up'
          ? true
          : undefined,
      );
    }
  }
  return {
    nodes,
    primaryOf: async (slot) => {
      for (const node of nodes) {
        if (!node.running) continue;
        const role = (await ask(node.port, ['ROLE']).catch(() => [])) as [
          string,
        ];
        if (role[0] !== 'master') continue;
        const shards = String(await ask(node.port, ['CLUSTER', 'NODES'])).split(
          '\n',
        );
        const mine = shards.find((line) => line.includes('myself'));
        const ranges = mine?.split(' ').slice(8) ?? [];
        const owns = ranges.some((range) => {
          const [from = -1, to = from] = range.split('-').map(Number);
          return slot >= from && slot <= to;
        });
        if (owns) return node;
      }
      throw new Error(`no running primary serves slot ${slot}`);
    },
    settled: async () => {
      for (const node of nodes) {
        if (!node.running) continue;
        await pollUntil('the cluster to serve every slot again', async () => {
          const state = String(await ask(node.port, ['CLUSTER', 'INFO']));
          const failedWithSlots = String(
            await ask(node.port, ['CLUSTER', 'NODES']),
          )
            .split('\n')
            .some((line) => {
              const fields = line.split(' ');
              return (
                (fields[2] ?? '').includes('master') &&
                (fields[2] ?? '').includes('fail') &&
                fields.length > 8
              );
            });
          return state.includes('cluster_state:ok') && !failedWithSlots
            ? true
            : undefined;
        });
      }
    },
    killAll: async () => {
      await Promise.all(nodes.map((node) => node.kill()));
    },
    stop: async () => {
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
}
