// `candor-fleet` against Redis Cluster and Sentinel, with real servers the tests start: the
// same commands as on one node, taking the store's own shape of options.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createToolBreaker, type ToolBreaker } from '@candor/breaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bundleFixture,
  type BundledFixture,
} from '../__fixtures__/bundle-fixture.ts';
import { viewBecomes } from '../__fixtures__/fleet-helpers.ts';
import {
  haInstalled,
  type RedisClusterSet,
  type SentinelSet,
  startRedisCluster,
  startSentinelSet,
} from '../__fixtures__/redis-ha.ts';
import { createRedisBreakerStore } from '../create-redis-breaker-store.ts';
import { type FleetStatus } from '../fleet-status.ts';
import { type RedisBreakerStore } from '../redis-breaker-store.ts';
import { type RedisBreakerStoreOptions } from '../redis-breaker-store-options.ts';
import { runFleetCli } from './run-fleet-cli.ts';

/** Runs `runFleetCli` here, with `env`, and what it wrote. */
async function inProcess(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runFleetCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
  });
  return { code, stdout, stderr };
}

describe('candor-fleet: the cluster and sentinel options', () => {
  it.each([
    [
      ['status', '--url', 'redis://a:1', '--cluster', 'redis://b:2'],
      /--url and --cluster cannot be given together/,
    ],
    [
      [
        'status',
        '--cluster',
        'redis://b:2',
        '--sentinel',
        'c:3',
        '--name',
        'm',
      ],
      /--cluster and --sentinel cannot/,
    ],
    [['status', '--cluster', ' , '], /--cluster needs at least one node URL/],
    [
      ['status', '--cluster', 'redis://b:2,http://c:3'],
      /--cluster must be a redis:\/\/ or rediss:\/\/ URL, got http:/,
    ],
    [['status', '--sentinel', 'c:3'], /--sentinel needs --name/],
    [
      ['status', '--sentinel', 'c', '--name', 'm'],
      /--sentinel takes host:port/,
    ],
    [
      ['status', '--sentinel', 'c:70000', '--name', 'm'],
      /--sentinel takes host:port/,
    ],
    [['status', '--name', 'm'], /--name goes with --sentinel/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const run = await inProcess(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('never shows the credentials of a cluster URL', async () => {
    // A port nothing listens on: the command fails at once, naming the nodes without passwords.
    const run = await inProcess([
      'status',
      '--cluster',
      'redis://ops:s3cret@127.0.0.1:1',
      '--timeout-ms',
      '5000',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cluster redis:\/\/127\.0\.0\.1:1/);
    expect(run.stderr).not.toContain('s3cret');
  });
});

/** A breaker on `store` for `tool`, and its fleet circuit. */
function breakerOn(store: RedisBreakerStore, tool: string) {
  const breaker = createToolBreaker(tool, { store, telemetry: false });
  // The circuit the breaker joined (made on first use; the rules given here are ignored).
  const circuit = store.circuit(tool, {
    resetTimeoutMs: 1,
    windowMs: 1,
    buckets: 1,
    minimumCalls: 1,
    failureRatePct: 1,
    leaseMs: 1,
  });
  return { breaker, circuit };
}

/** open, status, close, release on `target`, seen by a breaker of the fleet each time. */
async function operate(
  target: readonly string[],
  store: RedisBreakerStore,
  tool: string,
  env: Record<string, string> = {},
): Promise<ToolBreaker> {
  const { breaker, circuit } = breakerOn(store, tool);
  expect(circuit.view).toBe('closed');
  // A backstop: discovering a cluster takes several round trips on a loaded machine.
  const options = [...target, '--timeout-ms', '15000'];
  const opened = await inProcess(['open', tool, ...options], env);
  expect(opened.stderr).toBe('');
  expect(opened.code).toBe(0);
  await viewBecomes(circuit, 'open');
  expect(breaker.admit().admitted).toBe(false);
  const status = await inProcess(['status', '--json', ...options], env);
  expect(status.code).toBe(0);
  const parsed = JSON.parse(status.stdout) as FleetStatus;
  expect(parsed.tools.find((t) => t.tool === tool)).toMatchObject({
    state: 'open',
    forced: 'open',
  });
  const closed = await inProcess(['close', tool, ...options], env);
  expect(closed.code).toBe(0);
  await viewBecomes(circuit, 'closed');
  const released = await inProcess(
    ['release', tool, ...options, '--json'],
    env,
  );
  expect(JSON.parse(released.stdout)).toMatchObject({ released: true });
  return breaker;
}

describe.skipIf(!haInstalled)('candor-fleet on Redis Cluster', () => {
  let cluster: RedisClusterSet;
  let cliBundle: BundledFixture;
  const stores: RedisBreakerStore[] = [];
  const breakers: ToolBreaker[] = [];

  beforeAll(async () => {
    [cluster, cliBundle] = await Promise.all([
      startRedisCluster(),
      bundleFixture('../cli/candor-fleet'),
    ]);
  }, 120_000);
  afterAll(async () => {
    for (const breaker of breakers) breaker.shutdown();
    await Promise.all(stores.map((store) => store.close()));
    await cluster.stop();
    cliBundle.remove();
  }, 60_000);

  async function storeOn(options: RedisBreakerStoreOptions) {
    const store = createRedisBreakerStore({
      ...options,
      connectTimeoutMs: 15_000,
    });
    stores.push(store);
    expect(await store.connect()).toBe(true);
    return store;
  }

  it('holds and releases a tool in a store on the cluster, from one node URL or all of them', async () => {
    const urls = cluster.nodes.map((node) => node.url);
    const store = await storeOn({
      cluster: { rootNodes: urls.map((url) => ({ url })) },
    });
    breakers.push(
      await operate(['--cluster', urls.join(',')], store, 'cluster_cli'),
    );
    // One node is enough: the client discovers the rest, and the fleet's slot.
    breakers.push(
      await operate(['--cluster', urls[2] ?? ''], store, 'cluster_cli_one'),
    );
  }, 120_000);

  it('the bin itself takes --cluster: status in its own process, naming the nodes', async () => {
    const urls = cluster.nodes.map((node) => node.url);
    const child = spawn(
      process.execPath,
      [
        cliBundle.file,
        'status',
        '--cluster',
        urls.join(','),
        '--timeout-ms',
        '15000',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env['PATH'] ?? '' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^fleet "candor:breaker:" at cluster redis:\/\/127\.0\.0\.1:\d+,/,
    );
    expect(stdout).toMatch(/cluster_cli/);
  }, 60_000);
});

describe.skipIf(!haInstalled)('candor-fleet on Redis Sentinel', () => {
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

  it('holds and releases a tool in a store on the primary the sentinels name', async () => {
    const store = createRedisBreakerStore({
      sentinel: { name: set.name, sentinelRootNodes: set.sentinelRootNodes },
      connectTimeoutMs: 15_000,
    });
    stores.push(store);
    expect(await store.connect()).toBe(true);
    const nodes = set.sentinelRootNodes
      .map((node) => `${node.host}:${String(node.port)}`)
      .join(',');
    breakers.push(
      await operate(
        ['--sentinel', nodes, '--name', set.name],
        store,
        'sentinel_cli',
      ),
    );
  }, 120_000);
});
