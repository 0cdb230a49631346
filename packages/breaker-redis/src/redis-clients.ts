import { type EventEmitter } from 'node:events';
import {
  createClient,
  createCluster,
  createSentinel,
  type RedisClientType,
  type RedisClusterOptions,
  type RedisClusterType,
  type RedisFunctions,
  type RedisModules,
  type RedisScripts,
  type RedisSentinelOptions,
  type RedisSentinelType,
  type TypeMapping,
} from '@redis/client';
import { fleetKeysFor } from './fleet-keys.ts';
import { type RedisBreakerStoreOptions } from './redis-breaker-store-options.ts';

/**
 * One of the store's two connections, whatever stands behind it: a plain client, a Sentinel-
 * managed set of clients, or a cluster client. The link sends on it and nothing else.
 */
export interface StoreConnection {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  /**
   * Whether the client follows the primary on its own (Sentinel, Cluster): the link never
   * recycles such a connection, since the client re-discovers the topology itself.
   */
  readonly managed: boolean;
  connect(): Promise<unknown>;
  destroy(): void;
  sendCommand<T>(args: string[]): Promise<T>;
  subscribe(
    channels: string | string[],
    listener: (message: string, channel: string) => void,
  ): Promise<unknown>;
}

/** What every connection tells the link. */
export interface StoreConnectionEvents {
  onError(error: unknown): void;
  onReady(): void;
}

/** How both connections are made, already defaulted. */
export interface StoreConnectionTimings {
  readonly connectTimeoutMs: number;
}

type Client = RedisClientType;
type Sentinel = RedisSentinelType<
  RedisModules,
  RedisFunctions,
  RedisScripts,
  3,
  TypeMapping
>;
type Cluster = RedisClusterType<
  RedisModules,
  RedisFunctions,
  RedisScripts,
  3,
  TypeMapping
>;

/** Node client options every topology shares: credentials, TLS, no offline queue. */
function nodeOptions(
  options: RedisBreakerStoreOptions,
  timings: StoreConnectionTimings,
) {
  const tls = options.tls;
  return {
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
    // Commands fail at once while disconnected, instead of queueing behind a dead socket.
    disableOfflineQueue: true,
    socket: {
      ...(tls === undefined || tls === false
        ? {}
        : { tls: true as const, ...(tls === true ? {} : tls) }),
      connectTimeout: timings.connectTimeoutMs,
    },
  };
}

/**
 * How a Sentinel's or a cluster's node clients reconnect. @redis/client sleeps between attempts
 * on a timer that keeps the process alive and that destroy() does not clear (its default waits up
 * to 2.2 s), so a store closed while its servers are gone would linger that long. Short waits
 * bound that: at most 250 ms. The first attempts back off as the default does.
 */
function nodeReconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 200) + Math.floor(Math.random() * 50);
}

function fromClient(client: Client): StoreConnection {
  return {
    get isOpen() {
      return client.isOpen;
    },
    get isReady() {
      return client.isReady;
    },
    managed: false,
    connect: () => client.connect(),
    destroy: () => {
      client.destroy();
    },
    sendCommand: <T>(args: string[]) => client.sendCommand<T>(args),
    subscribe: (channel, listener) => client.subscribe(channel, listener),
  };
}

function fromSentinel(sentinel: Sentinel): StoreConnection {
  return {
    get isOpen() {
      return sentinel.isOpen;
    },
    get isReady() {
      return sentinel.isReady;
    },
    managed: true,
    connect: () => sentinel.connect(),
    destroy: () => {
      // Resolves once every node client is gone; nothing waits on it.
      sentinel.destroy().catch(() => undefined);
    },
    // Every fleet command writes: always the primary.
    sendCommand: <T>(args: string[]) => sentinel.sendCommand<T>(false, args),
    subscribe: (channel, listener) => sentinel.subscribe(channel, listener),
  };
}

/**
 * Every fleet key shares one hash slot (see FleetKeys), so every command, keyed or not (TIME),
 * goes to that slot's primary: the clock the scripts read is the one the store estimates. The
 * subscriber's PING goes on its pub/sub connection, and it is ready only while that connection
 * is: a cluster moves a subscription off a dead node only on its next topology refresh, and
 * announcements published meanwhile are lost, so the store falls back and resynchronises after
 * the move instead.
 */
function fromCluster(
  cluster: Cluster,
  slotKey: string,
  subscriber: boolean,
): StoreConnection {
  const pubSub = () => (subscriber ? cluster.pubSubNode?.client : undefined);
  return {
    get isOpen() {
      return cluster.isOpen;
    },
    get isReady() {
      return cluster.isReady && pubSub()?.isReady !== false;
    },
    managed: true,
    connect: () => cluster.connect(),
    destroy: () => {
      cluster.destroy();
    },
    sendCommand: <T>(args: string[]) => {
      const client = pubSub();
      return client === undefined
        ? cluster.sendCommand<T>(slotKey, false, args)
        : client.sendCommand<T>(args);
    },
    subscribe: (channel, listener) => cluster.subscribe(channel, listener),
  };
}

function listen(emitter: EventEmitter, events: StoreConnectionEvents): void {
  // node-redis emits 'error' on every failed (re)connection; without a listener it throws.
  emitter.on('error', (error: unknown) => {
    events.onError(error);
  });
  emitter.on('ready', () => {
    events.onReady();
  });
}

function sentinelConnection(
  sentinel: Sentinel,
  events: StoreConnectionEvents,
): StoreConnection {
  listen(sentinel, events);
  // The primary's connection dropping is the first sign of a failover: fall back at once rather
  // than on the first command timeout. A sentinel node's own error only moves the client to
  // another sentinel, and a replica is never used.
  // The client re-points itself at a promoted replica ('reconnecting', then 'ready'). Both
  // connections move on their own, the pub/sub one maybe later: falling back until each is
  // 'ready' again makes the store resynchronise after the last one moved, so an announcement
  // published before a connection re-subscribed is read back rather than missed.
  sentinel.on('reconnecting', () => {
    events.onError(new Error('Sentinel is moving to a new primary'));
  });
  sentinel.on('client-error', (event: { type: string; error: unknown }) => {
    if (event.type === 'MASTER' || event.type === 'PUBSUBPROXY') {
      events.onError(event.error);
    }
  });
  return fromSentinel(sentinel);
}

/**
 * The store's command and pub/sub connections for a plain server, a Sentinel-monitored primary
 * or a cluster.
 */
export function createStoreConnections(
  options: RedisBreakerStoreOptions,
  timings: StoreConnectionTimings,
  events: StoreConnectionEvents,
): { client: StoreConnection; subscriber: StoreConnection } {
  const node = nodeOptions(options, timings);
  if (options.sentinel !== undefined) {
    const given = options.sentinel;
    const sentinelOptions: RedisSentinelOptions = {
      // The client's own rediscovery retries a failed one after a 1 s sleep that keeps the
      // process alive and that destroy() waits out: a closed store lingered ~1–2 s when every
      // server was gone. Without retries a failed rediscovery is one more error: the store falls
      // back, and its probe's next command makes the client rediscover.
      maxCommandRediscovers: 0,
      ...given,
      // Given node options win, a given socket as a whole.
      nodeClientOptions: {
        ...node,
        socket: { ...node.socket, reconnectStrategy: nodeReconnectDelay },
        ...given.nodeClientOptions,
      },
      sentinelClientOptions: {
        socket: { connectTimeout: timings.connectTimeoutMs },
        ...given.sentinelClientOptions,
      },
      // The client's own failover handling: it follows the sentinels' switch-master events.
      passthroughClientErrorEvents: false,
    };
    const client = createSentinel(sentinelOptions);
    return {
      client: sentinelConnection(client, events),
      subscriber: sentinelConnection(client.duplicate(), events),
    };
  }
  if (options.cluster !== undefined) {
    const given = options.cluster;
    const clusterOptions: RedisClusterOptions = {
      // A promoted replica is found soon after its old primary stops answering, not after the
      // client's default 5 s.
      topologyRefreshOnReconnectionAttemptStrategy: 200,
      ...given,
      // Given defaults win, a given socket as a whole.
      defaults: {
        ...node,
        socket: { ...node.socket, reconnectStrategy: nodeReconnectDelay },
        ...given.defaults,
      },
    };
    const client = createCluster(clusterOptions);
    // A key of the fleet's one hash slot: where every command goes.
    const slotKey = fleetKeysFor(options).states;
    const subscriber = client.duplicate({ minimizeConnections: true });
    for (const each of [client, subscriber]) listen(each, events);
    return {
      client: fromCluster(client, slotKey, false),
      subscriber: fromCluster(subscriber, slotKey, true),
    };
  }
  const single = createClient({
    ...node,
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.database === undefined ? {} : { database: options.database }),
    socket: {
      ...node.socket,
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.port === undefined ? {} : { port: options.port }),
      // The store reconnects on its own unref'd timers (see RedisLink.revive()): the client's
      // own retry sleeps on a timer that keeps a closed process alive, and makes connect() wait
      // out a refused connection or a wrong password instead of failing at once.
      reconnectStrategy: false,
    },
  });
  const subscriber = single.duplicate();
  for (const each of [single, subscriber]) listen(each, events);
  return { client: fromClient(single), subscriber: fromClient(subscriber) };
}
