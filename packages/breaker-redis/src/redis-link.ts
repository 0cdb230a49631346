import { type FleetScript } from './fleet-scripts.ts';
import { type RedisBreakerStoreOptions } from './redis-breaker-store-options.ts';
import {
  createStoreConnections,
  type StoreConnection,
} from './redis-clients.ts';

/** A command that got no answer in time. */
export class StoreTimeout extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'StoreTimeout';
  }
}

type Client = StoreConnection;

/** What the link tells its store. */
export interface RedisLinkEvents {
  /** A connection failed, or failed to (re)connect. */
  onError(error: unknown): void;
  /** A connection is ready again. */
  onReady(): void;
}

/** The timings the link runs on, already defaulted and checked. */
export interface RedisLinkTimings {
  readonly commandTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly probeIntervalMs: number;
}

/**
 * The store's two connections to Redis (commands, and pub/sub) with what every command needs: a
 * deadline, a count, the NOSCRIPT fallback, and the server's clock as seen from here.
 */
export class RedisLink {
  readonly client: Client;
  readonly subscriber: Client;
  readonly #timeoutMs: number;
  /** Channels the subscriber has subscribed to; the client keeps its listeners across connections. */
  readonly #subscribed = new Set<string>();
  #offset = Date.now() - performance.now();
  #closing = false;
  /** Commands sent, not counting pub/sub deliveries. */
  commands = 0;

  constructor(
    options: RedisBreakerStoreOptions,
    timings: RedisLinkTimings,
    events: RedisLinkEvents,
  ) {
    this.#timeoutMs = timings.commandTimeoutMs;
    const connections = createStoreConnections(options, timings, events);
    this.client = connections.client;
    this.subscriber = connections.subscriber;
  }

  /** Whether both connections are ready for commands. */
  get ready(): boolean {
    return this.client.isReady && this.subscriber.isReady;
  }

  /** The server's clock, estimated locally. */
  serverNow(): number {
    return performance.now() + this.#offset;
  }

  /** Stops every later reconnection: the store is being closed. */
  closing(): void {
    this.#closing = true;
  }

  /** Drops both connections at once. */
  destroy(): void {
    this.#closing = true;
    for (const client of [this.client, this.subscriber]) {
      try {
        client.destroy();
      } catch {
        // Already closed.
      }
    }
  }

  /** Opens every connection that is closed (a failed or dropped one); errors come as events. */
  revive(): void {
    if (this.#closing) return;
    for (const client of [this.client, this.subscriber]) {
      if (!client.isOpen) client.connect().catch(() => undefined);
    }
  }

  /**
   * Subscribes to each channel once, all in one SUBSCRIBE (one round trip on the way to healthy);
   * later connections of the subscriber subscribe again.
   */
  async subscribe(
    listeners: ReadonlyMap<string, (message: string) => void>,
  ): Promise<void> {
    const fresh = [...listeners.keys()].filter(
      (channel) => !this.#subscribed.has(channel),
    );
    if (fresh.length === 0) return;
    await this.bounded(
      this.subscriber.subscribe(fresh, (message: string, channel: string) => {
        listeners.get(channel)?.(message);
      }),
      this.#timeoutMs,
    );
    for (const channel of fresh) this.#subscribed.add(channel);
  }

  /** `work`, or a StoreTimeout after `ms`. */
  async bounded<T>(work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      // Unref'd: a command in flight never keeps a closing process alive.
      timer = setTimeout(() => {
        reject(new StoreTimeout(ms));
      }, ms).unref();
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
      // A late failure of the abandoned command is already handled by the timeout.
      work.catch(() => undefined);
    }
  }

  /** One command on the command connection, bounded by the command timeout. */
  async command<T>(args: string[]): Promise<T> {
    this.commands += 1;
    try {
      return await this.bounded(
        this.client.sendCommand<T>(args),
        this.#timeoutMs,
      );
    } catch (error: unknown) {
      if (error instanceof StoreTimeout) this.reconnect();
      throw error;
    }
  }

  /**
   * Waits, bounded by the command timeout, for `delivery`: a message this process published to
   * itself, the only sign that the pub/sub connection (which sends nothing) still hears.
   */
  async delivered(delivery: Promise<void>): Promise<void> {
    try {
      await this.bounded(delivery, this.#timeoutMs);
    } catch (error: unknown) {
      if (error instanceof StoreTimeout) this.reconnect(this.subscriber);
      throw error;
    }
  }

  /**
   * A command that got no answer leaves its connection in doubt: one that a network device
   * dropped without a reset stays "ready" and answers nothing, for as long as TCP keepalive takes
   * to notice. So the link drops it and connects again; 'ready' then resynchronises the store.
   */
  reconnect(client: Client = this.client): void {
    // A store being closed only lets its last batch time out: no new connection.
    // A Sentinel or cluster client re-discovers the primary itself: it is never recycled.
    if (this.#closing || !client.isOpen || client.managed) return;
    // The subscriber keeps its channel listeners and subscribes again once connected.
    client.destroy();
    // A failed connection is reported as an 'error' event, and retried by the client.
    client.connect().catch(() => undefined);
  }

  /** Runs a fleet script (EVALSHA, then EVAL once if the server lost it); checks the reply. */
  async eval(
    script: FleetScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown[]> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    const sent = performance.now();
    let reply: unknown;
    try {
      reply = await this.command(['EVALSHA', script.sha, ...tail]);
    } catch (error: unknown) {
      // A restarted server has forgotten its scripts: send this one in full, once.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) {
        throw error;
      }
      reply = await this.command(['EVAL', script.source, ...tail]);
    }
    if (!Array.isArray(reply) || typeof reply[0] !== 'number') {
      throw new TypeError('Redis answered a script with something unexpected');
    }
    // The server's clock, seen from here: one clock for the whole fleet's timeouts. Measured
    // against the monotonic clock, so a step of the process's wall clock changes nothing.
    this.#offset = reply[0] - (sent + performance.now()) / 2;
    return reply as unknown[];
  }

  /** Reads the server's clock with TIME; throws when the reply is not Redis's. */
  async readClock(): Promise<void> {
    const sent = performance.now();
    const time = await this.command<unknown>(['TIME']);
    // Whatever answers on the port may not be Redis: a reply of the wrong shape is a failure.
    if (
      !Array.isArray(time) ||
      time.length !== 2 ||
      !time.every((part) => typeof part === 'string' && /^\d+$/.test(part))
    ) {
      throw new TypeError('Redis answered TIME with something unexpected');
    }
    const seconds = Number(time[0]);
    const micros = Number(time[1]);
    this.#offset =
      seconds * 1000 +
      Math.floor(micros / 1000) -
      (sent + performance.now()) / 2;
  }
}
