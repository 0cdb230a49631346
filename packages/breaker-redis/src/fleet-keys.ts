import {
  type RedisBreakerStoreOptions,
  storeDefaults,
} from './redis-breaker-store-options.ts';

/**
 * Whether `prefix` already holds a Redis Cluster hash tag: a `{` followed later by a `}` with
 * something between them (the first such pair is the one the cluster hashes).
 */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  if (open === -1) return false;
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1;
}

/**
 * The names of the fleet's keys and channel under one prefix. Every script names its keys through
 * this, so the layout is written down in one place (and in docs/fleet.md).
 *
 * On a cluster every key and the channel carry one hash tag, the prefix's (`{candor:breaker:}…`,
 * or the prefix as given when it already holds one): every script then touches one slot, and the
 * records, the generation marker and the windows live and fail over together, so a shard that
 * loses the fleet's state loses all of it, and the generation marker notices. Without a cluster
 * the names are the prefix and a suffix, as they always were.
 */
export class FleetKeys {
  readonly prefix: string;
  /** What every name starts with: the prefix, hash-tagged on a cluster. */
  readonly base: string;
  /** The pub/sub channel every transition is announced on. */
  readonly channel: string;
  /** Hash: tool → its record (JSON), for tools that are not closed. */
  readonly states: string;
  /** Hash: tool → its last epoch. */
  readonly epochs: string;

  constructor(prefix: string, options: { readonly cluster?: boolean } = {}) {
    this.prefix = prefix;
    this.base =
      options.cluster === true && !hasHashTag(prefix) ? `{${prefix}}` : prefix;
    this.channel = `${this.base}events`;
    this.states = `${this.base}states`;
    this.epochs = `${this.base}epochs`;
  }

  /**
   * The channel only one process listens on: its heartbeat publishes there, so one script proves
   * both of its connections alive (see FleetHeartbeat).
   */
  beat(processId: string): string {
    return `${this.prefix}beat:${processId}`;
  }

  /** Hash: one tool's rolling window, `c<bucket>` and `f<bucket>` counts. */
  window(tool: string): string {
    return `${this.base}window:${tool}`;
  }

  /** String: the token of the process holding one tool's trial claim or lease; always expires. */
  lease(tool: string): string {
    return `${this.base}lease:${tool}`;
  }
}

/** The fleet's keys for a store's options: the prefix, hash-tagged when on a cluster. */
export function fleetKeysFor(options: RedisBreakerStoreOptions): FleetKeys {
  return new FleetKeys(options.keyPrefix ?? storeDefaults.keyPrefix, {
    cluster: options.cluster !== undefined,
  });
}
