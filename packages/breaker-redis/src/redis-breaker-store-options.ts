import { type ConnectionOptions } from 'node:tls';
import { type Logger } from '@candor/tools';
import {
  type RedisClusterOptions,
  type RedisSentinelOptions,
} from '@redis/client';

/**
 * A primary monitored by Redis Sentinel, shaped like `createSentinel`'s options of
 * `@redis/client`: the client asks the sentinels for the primary and follows it over a failover.
 * `username`, `password` and `tls` of the store apply to the data nodes (`nodeClientOptions`
 * overrides them); the sentinels' own credentials go in `sentinelClientOptions`.
 */
export type RedisBreakerSentinelOptions = Pick<
  RedisSentinelOptions,
  | 'name'
  | 'sentinelRootNodes'
  | 'nodeClientOptions'
  | 'sentinelClientOptions'
  | 'maxCommandRediscovers'
  | 'nodeAddressMap'
  | 'scanInterval'
>;

/**
 * A Redis Cluster, shaped like `createCluster`'s options of `@redis/client`. `username`,
 * `password` and `tls` of the store apply to every node (`defaults` overrides them). Every fleet
 * key shares one hash slot: see docs/fleet.md.
 */
export type RedisBreakerClusterOptions = Pick<
  RedisClusterOptions,
  | 'rootNodes'
  | 'defaults'
  | 'maxCommandRedirections'
  | 'nodeAddressMap'
  | 'topologyRefreshOnReconnectionAttemptStrategy'
>;

/** How to reach Redis (or Valkey) and how the fleet's state is kept there. */
export interface RedisBreakerStoreOptions {
  /** `redis[s]://[[username][:password]@][host][:port][/db-number]`. Default `redis://127.0.0.1:6379`. */
  readonly url?: string;
  /** Overrides the URL's host. */
  readonly host?: string;
  /** Overrides the URL's port. */
  readonly port?: number;
  /** ACL user name, passed to the client. */
  readonly username?: string;
  /** Password (`requirepass` or an ACL user's), passed to the client. Never logged. */
  readonly password?: string;
  /** Database number. Default 0. */
  readonly database?: number;
  /** A Sentinel-monitored primary instead of `url`/`host`/`port`. */
  readonly sentinel?: RedisBreakerSentinelOptions;
  /** A Redis Cluster instead of `url`/`host`/`port`. */
  readonly cluster?: RedisBreakerClusterOptions;
  /** `true`, or Node's TLS options (`ca`, `cert`, `key`, `servername`, …), passed to the client. */
  readonly tls?: boolean | ConnectionOptions;
  /**
   * Prefix of every key and of the channel, one per application sharing a server. Default
   * `candor:breaker:`.
   */
  readonly keyPrefix?: string;
  /** How long outcomes wait to be written in one batch. Default 10 ms. */
  readonly flushIntervalMs?: number;
  /**
   * How long the store waits for any answer before it falls back to the local breakers. No call
   * waits on it: the trial lease is asked for in the background. Default 100 ms.
   */
  readonly commandTimeoutMs?: number;
  /** How long the first connection may take before `connect()` gives up for now. Default 2 000 ms. */
  readonly connectTimeoutMs?: number;
  /**
   * How often a fallen-back store checks whether Redis is back, and a healthy one sends its
   * heartbeat: one script that reads the fleet's generation and publishes to this process's own
   * channel, proving both connections alive. An idle process sends nothing else. Default 1 000 ms.
   */
  readonly probeIntervalMs?: number;
  /**
   * How long a process's claim on the next half-open trial holds the rest of the fleet back once
   * the trial is due. The claimant's first call once due is the trial; a claimant that went quiet
   * (a serverless instance) delays recovery by this much at most, then any process's call takes
   * the trial. Default 25 ms.
   */
  readonly trialClaimMs?: number;
  /** A pino-compatible logger. Default: silent. */
  readonly logger?: Logger;
}

/** Where the store stands: answering (`healthy`), fallen back to local breakers, or closed. */
export type RedisBreakerStoreHealth =
  'connecting' | 'healthy' | 'degraded' | 'closed';

/** Counters of one store, for benchmarks and dashboards. */
export interface RedisBreakerStoreStats {
  /** Commands sent to Redis (scripts and reads), not counting pub/sub deliveries. */
  readonly commands: number;
  /** Outcome batches written. */
  readonly flushes: number;
  /** Times the store fell back to the local breakers. */
  readonly fallbacks: number;
  /** Times it synchronised its view with Redis (the first connection included). */
  readonly resyncs: number;
}

/** The defaults of every timing and naming option. */
export const storeDefaults = {
  keyPrefix: 'candor:breaker:',
  flushIntervalMs: 10,
  commandTimeoutMs: 100,
  connectTimeoutMs: 2_000,
  probeIntervalMs: 1_000,
  trialClaimMs: 25,
};

function checkMs(name: string, value: unknown): void {
  if (value === undefined) return;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value <= 0 ||
    value > 2_147_483_647
  ) {
    throw new RangeError(
      `Redis breaker store option "${name}" must be a number of ms in (0, 2147483647], got ${typeof value === 'number' ? String(value) : typeof value}`,
    );
  }
}

/** Throws a TypeError or RangeError naming the first bad option. */
export function validateStoreOptions(options: RedisBreakerStoreOptions): void {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new TypeError('Redis breaker store options must be an object');
  }
  for (const name of [
    'flushIntervalMs',
    'commandTimeoutMs',
    'connectTimeoutMs',
    'probeIntervalMs',
    'trialClaimMs',
  ] as const) {
    checkMs(name, options[name]);
  }
  validateTopology(options);
  const prefix = options.keyPrefix;
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix === '')) {
    throw new TypeError(
      'Redis breaker store option "keyPrefix" must be a non-empty string',
    );
  }
}

function validateTopology(options: RedisBreakerStoreOptions): void {
  const { sentinel, cluster } = options;
  if (sentinel === undefined && cluster === undefined) return;
  if (sentinel !== undefined && cluster !== undefined) {
    throw new TypeError(
      'Redis breaker store options "sentinel" and "cluster" cannot both be given',
    );
  }
  const which = sentinel === undefined ? 'cluster' : 'sentinel';
  for (const name of ['url', 'host', 'port'] as const) {
    if (options[name] !== undefined) {
      throw new TypeError(
        `Redis breaker store option "${name}" cannot be given with "${which}": the nodes come from "${which}"`,
      );
    }
  }
  if (sentinel !== undefined) {
    if (typeof sentinel !== 'object' || (sentinel as unknown) === null) {
      throw new TypeError(
        'Redis breaker store option "sentinel" must be an object',
      );
    }
    if (typeof sentinel.name !== 'string' || sentinel.name === '') {
      throw new TypeError(
        'Redis breaker store option "sentinel.name" must be the non-empty name the sentinels monitor',
      );
    }
    if (
      !Array.isArray(sentinel.sentinelRootNodes) ||
      sentinel.sentinelRootNodes.length === 0
    ) {
      throw new TypeError(
        'Redis breaker store option "sentinel.sentinelRootNodes" must be a non-empty array of { host, port }',
      );
    }
    return;
  }
  if (typeof cluster !== 'object' || (cluster as unknown) === null) {
    throw new TypeError(
      'Redis breaker store option "cluster" must be an object',
    );
  }
  if (!Array.isArray(cluster.rootNodes) || cluster.rootNodes.length === 0) {
    throw new TypeError(
      'Redis breaker store option "cluster.rootNodes" must be a non-empty array of node options ({ url } or { socket })',
    );
  }
  if (options.database !== undefined && options.database !== 0) {
    throw new TypeError(
      'Redis breaker store option "database" cannot be given with "cluster": a cluster has database 0 only',
    );
  }
}
