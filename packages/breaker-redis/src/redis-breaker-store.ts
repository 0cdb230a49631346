import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type ConnectionOptions } from 'node:tls';
import { type BreakerStateStore } from '@candor/breaker';
import { describeThrown } from '@candor/errors';
import { guardLogger, type Logger } from '@candor/tools';
import { createClient } from '@redis/client';
import {
  FleetCircuit,
  type FleetCircuitHost,
  type FleetRules,
} from './fleet-circuit.ts';
import {
  type FleetRecord,
  parseFleetEvent,
  parseFleetRecord,
} from './fleet-record.ts';
import {
  type FleetScript,
  claimScript,
  recordScript,
  restoreScript,
  settleScript,
  startScript,
} from './fleet-scripts.ts';

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
   * How often a fallen-back store checks whether Redis is back, and a healthy one pings its pub/sub
   * connection (which no other command would show to be dead). Default 1 000 ms.
   */
  readonly probeIntervalMs?: number;
  /**
   * How long a process's claim on the next half-open trial holds the rest of the fleet back once
   * the trial is due. The claimant's first call once due is the trial; a claimant that went quiet
   * (a serverless instance) delays recovery by this much at most, then any process's call takes
   * the trial. Default 50 ms.
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
  /** Commands sent to Redis (scripts, reads, pings), not counting pub/sub deliveries. */
  readonly commands: number;
  /** Outcome batches written. */
  readonly flushes: number;
  /** Times the store fell back to the local breakers. */
  readonly fallbacks: number;
  /** Times it synchronised its view with Redis (the first connection included). */
  readonly resyncs: number;
}

const defaults = {
  keyPrefix: 'candor:breaker:',
  flushIntervalMs: 10,
  commandTimeoutMs: 100,
  connectTimeoutMs: 2_000,
  probeIntervalMs: 1_000,
  trialClaimMs: 50,
};

class StoreTimeout extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'StoreTimeout';
  }
}

type Client = ReturnType<typeof createClient>;

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

function validate(options: RedisBreakerStoreOptions): void {
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
  const prefix = options.keyPrefix;
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix === '')) {
    throw new TypeError(
      'Redis breaker store option "keyPrefix" must be a non-empty string',
    );
  }
}

/**
 * The fleet's shared breaker state in Redis: one rolling window per tool, open-anywhere-open-
 * everywhere through pub/sub, one half-open trial lease fleet-wide. Calls read a local view;
 * outcomes are written in batches; when Redis is unreachable, slow or holds garbage, every
 * circuit answers `local` so the local breaker decides, and the store resynchronises when Redis
 * is back. Only tool names and counts are written, never arguments or results.
 *
 * @example
 * ```ts
 * const store = createRedisBreakerStore({ url: process.env.REDIS_URL, keyPrefix: 'myapp:' });
 * await store.connect(); // false: Redis is not there yet; local breakers decide meanwhile
 * const circuit = store.circuit('web_fetch', rules);
 * // …
 * await store.close();
 * ```
 */
export class RedisBreakerStore implements BreakerStateStore {
  /** This process's id in the fleet, as written in the records it decides. */
  readonly processId: string;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #statesKey: string;
  readonly #epochsKey: string;
  readonly #flushMs: number;
  readonly #timeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #probeMs: number;
  readonly #claimMs: number;
  readonly #logger: Logger;
  readonly #client: Client;
  readonly #subscriber: Client;
  readonly #circuits = new Map<string, FleetCircuit>();
  /** Records of tools that have no circuit here yet. */
  readonly #known = new Map<string, FleetRecord | undefined>();
  readonly #dirty = new Set<FleetCircuit>();
  readonly #host: FleetCircuitHost;
  #health: RedisBreakerStoreHealth = 'connecting';
  #offset = Date.now() - performance.now();
  #flushTimer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #probeTimer: NodeJS.Timeout | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #beating = false;
  #closing = false;
  #resyncing: Promise<boolean> | undefined;
  #connecting: Promise<boolean> | undefined;
  #garbageWarned = false;
  #stats = { commands: 0, flushes: 0, fallbacks: 0, resyncs: 0 };

  constructor(options: RedisBreakerStoreOptions = {}) {
    validate(options);
    this.processId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.#prefix = options.keyPrefix ?? defaults.keyPrefix;
    this.#channel = `${this.#prefix}events`;
    this.#statesKey = `${this.#prefix}states`;
    this.#epochsKey = `${this.#prefix}epochs`;
    this.#flushMs = options.flushIntervalMs ?? defaults.flushIntervalMs;
    this.#timeoutMs = options.commandTimeoutMs ?? defaults.commandTimeoutMs;
    this.#connectTimeoutMs =
      options.connectTimeoutMs ?? defaults.connectTimeoutMs;
    this.#probeMs = options.probeIntervalMs ?? defaults.probeIntervalMs;
    this.#claimMs = options.trialClaimMs ?? defaults.trialClaimMs;
    // A logger that throws loses its line, never a fallback, a resync or a count.
    this.#logger = guardLogger(options.logger, { component: 'breaker-redis' });
    const probeMs = this.#probeMs;
    const tls = options.tls;
    this.#client = createClient({
      ...(options.url === undefined ? {} : { url: options.url }),
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.password === undefined ? {} : { password: options.password }),
      ...(options.database === undefined ? {} : { database: options.database }),
      // Commands fail at once while disconnected, instead of queueing behind a dead socket.
      disableOfflineQueue: true,
      socket: {
        ...(options.host === undefined ? {} : { host: options.host }),
        ...(options.port === undefined ? {} : { port: options.port }),
        ...(tls === undefined || tls === false
          ? {}
          : { tls: true as const, ...(tls === true ? {} : tls) }),
        connectTimeout: this.#connectTimeoutMs,
        reconnectStrategy: (retries: number) =>
          Math.min(50 * 2 ** Math.min(retries, 10), probeMs),
      },
    });
    this.#subscriber = this.#client.duplicate();
    for (const client of [this.#client, this.#subscriber]) {
      // node-redis emits 'error' on every failed (re)connection; without a listener it throws.
      client.on('error', (error: unknown) => {
        this.#degrade(error);
      });
      client.on('ready', () => {
        if (this.#health === 'degraded') void this.#resync();
      });
    }
    this.#host = {
      processId: this.processId,
      usable: () => this.#health === 'healthy',
      serverNow: () => performance.now() + this.#offset,
      scheduleFlush: (circuit) => {
        this.#scheduleFlush(circuit);
      },
      claimMs: this.#claimMs,
      claimTrial: (circuit, token) => this.#claimTrial(circuit, token),
      startTrial: (circuit, token) => this.#startTrial(circuit, token),
      settleTrial: (circuit, token, failed) => {
        this.#settleTrial(circuit, token, failed);
      },
      onListenerError: (error) => {
        this.#logger.error(
          { error: describeThrown(error) },
          'fleet change listener threw',
        );
      },
    };
  }

  /** Whether circuits read the fleet's state now (connected, synchronised and answering). */
  usable(): boolean {
    return this.#health === 'healthy';
  }

  /** Where the store stands now. */
  get health(): RedisBreakerStoreHealth {
    return this.#health;
  }

  /** Counters since the store was created. */
  stats(): RedisBreakerStoreStats {
    return { ...this.#stats };
  }

  /**
   * Connects, subscribes and reads the fleet's state, so a process started while a circuit is
   * open refuses at once. Resolves `true` when synchronised, `false` when Redis could not be
   * reached within `connectTimeoutMs` (the store keeps trying; local breakers decide meanwhile).
   * Never rejects. Calling it again connects nothing more: it resolves once the first call has,
   * with whether the store is usable then.
   */
  async connect(): Promise<boolean> {
    if (this.#health === 'closed') return false;
    this.#connecting ??= this.#connectOnce();
    await this.#connecting;
    return this.#health === 'healthy';
  }

  async #connectOnce(): Promise<boolean> {
    const connecting = Promise.all([
      this.#client.connect(),
      this.#subscriber.connect(),
    ]).then(async () => {
      await this.#subscriber.subscribe(this.#channel, (message) => {
        this.#onMessage(message);
      });
      return this.#resync();
    });
    try {
      return await this.#bounded(connecting, this.#connectTimeoutMs);
    } catch (error: unknown) {
      this.#degrade(error);
      return false;
    }
  }

  /**
   * The fleet circuit of one tool, made on first use with `rules` (later calls return the same
   * circuit and ignore `rules`).
   */
  circuit(tool: string, rules: FleetRules): FleetCircuit {
    const existing = this.#circuits.get(tool);
    if (existing !== undefined) return existing;
    const circuit = new FleetCircuit(tool, rules, this.#host);
    this.#circuits.set(tool, circuit);
    if (this.#known.has(tool)) {
      circuit.apply(this.#known.get(tool), { force: true });
      this.#known.delete(tool);
    } else if (this.#health === 'healthy') {
      circuit.apply({ state: 'closed', epoch: 0 });
    }
    return circuit;
  }

  /** Writes what is pending (bounded by the command timeout), then disconnects. */
  async close(): Promise<void> {
    if (this.#health === 'closed') return;
    this.#closing = true;
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    clearInterval(this.#probeTimer);
    this.#probeTimer = undefined;
    clearInterval(this.#heartbeatTimer);
    this.#heartbeatTimer = undefined;
    await this.#flushing;
    if (this.#dirty.size > 0 && this.#health === 'healthy') await this.#flush();
    this.#health = 'closed';
    for (const client of [this.#client, this.#subscriber]) {
      try {
        client.destroy();
      } catch {
        // Already closed.
      }
    }
    for (const circuit of this.#circuits.values()) circuit.publish();
  }

  async #bounded<T>(work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new StoreTimeout(ms));
      }, ms);
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
      // A late failure of the abandoned command is already handled by the timeout.
      work.catch(() => undefined);
    }
  }

  async #command<T>(args: string[]): Promise<T> {
    this.#stats.commands += 1;
    try {
      return await this.#bounded(
        this.#client.sendCommand<T>(args),
        this.#timeoutMs,
      );
    } catch (error: unknown) {
      if (error instanceof StoreTimeout) this.#reconnect();
      throw error;
    }
  }

  /**
   * A command that got no answer leaves its connection in doubt: one that a network device
   * dropped without a reset stays "ready" and answers nothing, for as long as TCP keepalive takes
   * to notice. So the store drops it and connects again; 'ready' then resynchronises.
   */
  #reconnect(client: Client = this.#client): void {
    // A store being closed only lets its last batch time out: no new connection.
    if (this.#closing || this.#health === 'closed' || !client.isOpen) return;
    // The subscriber keeps its channel listeners and subscribes again once connected.
    client.destroy();
    // A failed connection is reported as an 'error' event, and retried by the client.
    client.connect().catch(() => undefined);
  }

  /**
   * Pings the subscriber connection while the store is healthy. Nothing else is ever sent on it,
   * so without this a subscriber connection that went silent without closing would go unnoticed
   * and the process would miss every transition.
   */
  async #heartbeat(): Promise<void> {
    if (this.#health !== 'healthy' || this.#beating) return;
    this.#beating = true;
    this.#stats.commands += 1;
    try {
      await this.#bounded(
        this.#subscriber.sendCommand(['PING']),
        this.#timeoutMs,
      );
    } catch (error: unknown) {
      if (error instanceof StoreTimeout) this.#reconnect(this.#subscriber);
      this.#degrade(error);
    } finally {
      this.#beating = false;
    }
  }

  async #eval(
    script: FleetScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown[]> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    const sent = performance.now();
    let reply: unknown;
    try {
      reply = await this.#command(['EVALSHA', script.sha, ...tail]);
    } catch (error: unknown) {
      // A restarted server has forgotten its scripts: send this one in full, once.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) {
        throw error;
      }
      reply = await this.#command(['EVAL', script.source, ...tail]);
    }
    if (!Array.isArray(reply) || typeof reply[0] !== 'number') {
      throw new TypeError('Redis answered a script with something unexpected');
    }
    // The server's clock, seen from here: one clock for the whole fleet's timeouts. Measured
    // against the monotonic clock, so a step of the process's wall clock changes nothing.
    this.#offset = reply[0] - (sent + performance.now()) / 2;
    return reply as unknown[];
  }

  #windowKey(tool: string): string {
    return `${this.#prefix}window:${tool}`;
  }

  #leaseKey(tool: string): string {
    return `${this.#prefix}lease:${tool}`;
  }

  #apply(tool: string, raw: unknown): void {
    const record = parseFleetRecord(raw);
    if (record === undefined) this.#garbage(tool);
    const circuit = this.#circuits.get(tool);
    if (circuit === undefined) this.#known.set(tool, record);
    else circuit.apply(record);
  }

  #garbage(tool: string): void {
    if (this.#garbageWarned) return;
    this.#garbageWarned = true;
    this.#logger.warn(
      { tool },
      'Redis holds a breaker state that is not ours; that tool uses its local breaker',
    );
  }

  #onMessage(message: string): void {
    const event = parseFleetEvent(message);
    if (event === undefined) {
      this.#garbage('(channel)');
      return;
    }
    if (this.#health !== 'healthy') return;
    this.#apply(event.tool, event.record);
  }

  #scheduleFlush(circuit: FleetCircuit): void {
    this.#dirty.add(circuit);
    if (this.#flushTimer !== undefined || this.#flushing !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      void this.#flush();
    }, this.#flushMs);
    this.#flushTimer.unref();
  }

  async #flush(): Promise<void> {
    const batch = [...this.#dirty];
    this.#dirty.clear();
    const args: (string | number)[] = [this.#channel, this.processId];
    const keys = [this.#statesKey, this.#epochsKey];
    for (const circuit of batch) {
      const { rules } = circuit;
      keys.push(this.#windowKey(circuit.tool));
      args.push(
        circuit.tool,
        circuit.pendingCalls,
        circuit.pendingFailures,
        rules.windowMs / rules.buckets,
        rules.buckets,
        rules.minimumCalls,
        rules.failureRatePct,
      );
      circuit.pendingCalls = 0;
      circuit.pendingFailures = 0;
    }
    // The local breakers count every outcome too: while the store is unusable nothing is lost.
    if (this.#health !== 'healthy') return;
    const flushing = (async () => {
      try {
        const reply = await this.#eval(recordScript, keys, args);
        this.#stats.flushes += 1;
        batch.forEach((circuit, i) => {
          this.#apply(circuit.tool, reply[i + 1]);
        });
      } catch (error: unknown) {
        this.#degrade(error);
      }
    })();
    this.#flushing = flushing;
    await flushing;
    this.#flushing = undefined;
    // The flush may have failed and changed the health meanwhile.
    if (this.#dirty.size > 0 && this.usable()) {
      const next = this.#dirty.values().next().value;
      if (next !== undefined) this.#scheduleFlush(next);
    }
  }

  async #claimTrial(
    circuit: FleetCircuit,
    token: string,
  ): Promise<number | undefined> {
    const { tool, rules } = circuit;
    try {
      const reply = await this.#eval(
        claimScript,
        [this.#statesKey, this.#epochsKey, this.#leaseKey(tool)],
        [
          this.#channel,
          this.processId,
          tool,
          rules.resetTimeoutMs,
          this.#claimMs,
          token,
        ],
      );
      this.#apply(tool, reply[1]);
      return reply[2] === 1 ? circuit.shared?.trialUntil : undefined;
    } catch (error: unknown) {
      this.#degrade(error);
      return undefined;
    }
  }

  async #startTrial(circuit: FleetCircuit, token: string): Promise<void> {
    const { tool, rules } = circuit;
    try {
      const reply = await this.#eval(
        startScript,
        [this.#statesKey, this.#epochsKey, this.#leaseKey(tool)],
        [
          this.#channel,
          this.processId,
          tool,
          rules.resetTimeoutMs,
          rules.leaseMs,
          token,
        ],
      );
      this.#apply(tool, reply[1]);
    } catch (error: unknown) {
      this.#degrade(error);
    }
  }

  #settleTrial(circuit: FleetCircuit, token: string, failed: boolean): void {
    const { tool } = circuit;
    if (this.#health !== 'healthy') return;
    this.#eval(
      settleScript,
      [
        this.#statesKey,
        this.#epochsKey,
        this.#leaseKey(tool),
        this.#windowKey(tool),
      ],
      [
        this.#channel,
        this.processId,
        tool,
        token,
        failed ? 'failure' : 'success',
      ],
    ).then(
      (reply) => {
        this.#apply(tool, reply[1]);
      },
      (error: unknown) => {
        this.#degrade(error);
      },
    );
  }

  #degrade(error: unknown): void {
    if (this.#health === 'closed') return;
    if (this.#health === 'degraded') {
      this.#logger.debug(
        { error: describeThrown(error) },
        'Redis still unusable',
      );
      return;
    }
    this.#health = 'degraded';
    this.#stats.fallbacks += 1;
    clearInterval(this.#heartbeatTimer);
    this.#heartbeatTimer = undefined;
    this.#dirty.clear();
    this.#logger.warn(
      { error: describeThrown(error) },
      'Redis breaker store unusable: each process uses its local breakers until it is back',
    );
    for (const circuit of this.#circuits.values()) circuit.publish();
    this.#probeTimer ??= setInterval(() => {
      if (this.#client.isReady && this.#subscriber.isReady) void this.#resync();
    }, this.#probeMs).unref();
  }

  /** Reads the whole fleet state again, writes back opens Redis lost, and becomes healthy. */
  async #resync(): Promise<boolean> {
    this.#resyncing ??= this.#doResync().finally(() => {
      this.#resyncing = undefined;
    });
    return this.#resyncing;
  }

  async #doResync(): Promise<boolean> {
    try {
      const sent = performance.now();
      const time = await this.#command<unknown>(['TIME']);
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
      // Every script reads the epochs: a key of another type there would fail each batch, and
      // the store would bounce between healthy and fallen back. WRONGTYPE fails the resync.
      await this.#command(['HLEN', this.#epochsKey]);
      const flat = await this.#command<unknown>(['HGETALL', this.#statesKey]);
      const states = toEntries(flat);
      const held = new Map(states);
      // Open circuits this process knew of that Redis no longer holds (it restarted empty).
      for (const circuit of this.#circuits.values()) {
        const record = circuit.shared;
        if (
          held.has(circuit.tool) ||
          record === undefined ||
          record.state === 'closed' ||
          record.openedAt === undefined
        ) {
          continue;
        }
        // A trial may still be out, its lease lost with the rest: no other process may start
        // one before that lease would have run out.
        const openedAt =
          record.leaseAt === undefined || record.leaseMs === undefined
            ? record.openedAt
            : Math.max(
                record.openedAt,
                record.leaseAt + record.leaseMs - circuit.rules.resetTimeoutMs,
              );
        const reply = await this.#eval(
          restoreScript,
          [this.#statesKey, this.#epochsKey],
          [this.#channel, this.processId, circuit.tool, openedAt],
        );
        held.set(circuit.tool, String(reply[1]));
      }
      if (this.#health === 'closed') return false;
      const wasDegraded = this.#health === 'degraded';
      this.#health = 'healthy';
      clearInterval(this.#probeTimer);
      this.#probeTimer = undefined;
      this.#heartbeatTimer ??= setInterval(() => {
        void this.#heartbeat();
      }, this.#probeMs).unref();
      this.#stats.resyncs += 1;
      this.#known.clear();
      for (const [tool, raw] of held) {
        const record = parseFleetRecord(raw);
        if (record === undefined) this.#garbage(tool);
        const circuit = this.#circuits.get(tool);
        if (circuit === undefined) this.#known.set(tool, record);
        else circuit.apply(record, { force: true });
      }
      for (const circuit of this.#circuits.values()) {
        if (!held.has(circuit.tool)) {
          circuit.apply({ state: 'closed', epoch: 0 }, { force: true });
        }
      }
      if (wasDegraded) {
        this.#logger.info(
          { resyncs: this.#stats.resyncs },
          'Redis breaker store is back; fleet state resynchronised',
        );
      }
      return true;
    } catch (error: unknown) {
      this.#degrade(error);
      return false;
    }
  }
}

/** The fields of an HGETALL reply (RESP2 array or RESP3 map); throws on any other shape. */
function toEntries(reply: unknown): [string, string][] {
  const entries: [string, string][] = [];
  if (Array.isArray(reply) && reply.length % 2 === 0) {
    for (let i = 0; i + 1 < reply.length; i += 2) {
      entries.push([reply[i] as string, reply[i + 1] as string]);
    }
  } else if (
    typeof reply === 'object' &&
    reply !== null &&
    !Array.isArray(reply)
  ) {
    entries.push(...(Object.entries(reply) as [string, string][]));
  } else {
    throw new TypeError('Redis answered HGETALL with something unexpected');
  }
  if (
    !entries.every(
      ([field, value]) =>
        typeof field === 'string' && typeof value === 'string',
    )
  ) {
    throw new TypeError('Redis answered HGETALL with something unexpected');
  }
  return entries;
}

/**
 * Creates a {@link RedisBreakerStore}. Call `connect()` before serving, so a process started
 * while a circuit is open refuses at once, and `close()` on exit.
 *
 * @example
 * ```ts
 * const store = createRedisBreakerStore({
 *   url: 'rediss://breakers.internal:6380',
 *   password: process.env.REDIS_PASSWORD,
 *   keyPrefix: 'support-agent:',
 * });
 * await store.connect();
 * ```
 */
export function createRedisBreakerStore(
  options: RedisBreakerStoreOptions = {},
): RedisBreakerStore {
  return new RedisBreakerStore(options);
}
