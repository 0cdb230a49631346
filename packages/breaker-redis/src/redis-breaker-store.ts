import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type BreakerStateStore } from '@candor/breaker';
import { describeThrown } from '@candor/errors';
import { guardLogger, type Logger } from '@candor/tools';
import { checkFleetRules } from './check-fleet-rules.ts';
import {
  FleetCircuit,
  type FleetCircuitHost,
  type FleetRules,
} from './fleet-circuit.ts';
import { FleetControl } from './fleet-control.ts';
import { type FleetKeys, fleetKeysFor } from './fleet-keys.ts';
import {
  type FleetRecord,
  parseFleetEvent,
  parseFleetRecord,
} from './fleet-record.ts';
import { FleetHeartbeat } from './fleet-heartbeat.ts';
import { applyFleet, readFleet } from './fleet-resync.ts';
import { outcomeBatch, recordScript } from './fleet-scripts.ts';
import { FleetTrials, type FleetTrialsContext } from './fleet-trials.ts';
import {
  type RedisBreakerStoreHealth,
  type RedisBreakerStoreOptions,
  type RedisBreakerStoreStats,
  storeDefaults,
  validateStoreOptions,
} from './redis-breaker-store-options.ts';
import { RedisLink } from './redis-link.ts';

/**
 * The fleet's shared breaker state in Redis: one rolling window per tool, open-anywhere-open-
 * everywhere through pub/sub, the half-open trials leased fleet-wide. Calls read a local view;
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
  /** Fleet-wide holds (`forceOpen`, `forceClose`, `release`) and `status()`: docs/fleet.md. */
  readonly fleet: FleetControl;
  /** Refuses a breaker rule the fleet cannot follow yet (`checkFleetRules`). */
  readonly checkRules = checkFleetRules;
  readonly #keys: FleetKeys;
  readonly #flushMs: number;
  readonly #connectTimeoutMs: number;
  readonly #probeMs: number;
  readonly #claimMs: number;
  readonly #logger: Logger;
  readonly #link: RedisLink;
  readonly #beat: FleetHeartbeat;
  readonly #circuits = new Map<string, FleetCircuit>();
  /** Records of tools that have no circuit here yet. */
  readonly #known = new Map<string, FleetRecord | undefined>();
  readonly #dirty = new Set<FleetCircuit>();
  readonly #host: FleetCircuitHost;
  #health: RedisBreakerStoreHealth = 'connecting';
  #flushTimer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #probeTimer: NodeJS.Timeout | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #beating = false;
  /** The fleet's generation as last read; another one means the state in Redis was lost. */
  #generation: string | undefined;
  #resyncing: Promise<boolean> | undefined;
  #connecting: Promise<boolean> | undefined;
  #garbageWarned = false;
  /** Every transition anywhere in the fleet, as announced on the channel. */
  readonly #listener = (message: string): void => {
    const event = parseFleetEvent(message);
    if (event === undefined) this.#garbage('(channel)');
    else if (this.#health === 'healthy') this.#apply(event.tool, event.record);
  };
  #stats = { flushes: 0, fallbacks: 0, resyncs: 0 };

  constructor(options: RedisBreakerStoreOptions = {}) {
    validateStoreOptions(options);
    this.processId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.#keys = fleetKeysFor(options);
    this.#flushMs = options.flushIntervalMs ?? storeDefaults.flushIntervalMs;
    this.#connectTimeoutMs =
      options.connectTimeoutMs ?? storeDefaults.connectTimeoutMs;
    this.#probeMs = options.probeIntervalMs ?? storeDefaults.probeIntervalMs;
    this.#claimMs = options.trialClaimMs ?? storeDefaults.trialClaimMs;
    // A logger that throws loses its line, never a fallback, a resync or a count.
    this.#logger = guardLogger(options.logger, { component: 'breaker-redis' });
    this.#link = new RedisLink(
      options,
      {
        commandTimeoutMs:
          options.commandTimeoutMs ?? storeDefaults.commandTimeoutMs,
        connectTimeoutMs: this.#connectTimeoutMs,
        probeIntervalMs: this.#probeMs,
      },
      {
        onError: (error) => {
          this.#degrade(error);
        },
        onReady: () => {
          if (this.#health === 'degraded') void this.#resync();
        },
      },
    );
    this.#beat = new FleetHeartbeat(this.#link, this.#keys, this.processId);
    const context: FleetTrialsContext = {
      link: this.#link,
      keys: this.#keys,
      processId: this.processId,
      claimMs: this.#claimMs,
      healthy: () => this.#health === 'healthy',
      apply: (tool, raw) => {
        this.#apply(tool, raw);
      },
      degrade: (error) => {
        this.#degrade(error);
      },
    };
    const trials = new FleetTrials(context);
    this.fleet = new FleetControl(context);
    this.#host = {
      processId: this.processId,
      claimMs: this.#claimMs,
      usable: () => this.#health === 'healthy',
      serverNow: () => this.#link.serverNow(),
      scheduleFlush: (circuit) => {
        this.#scheduleFlush(circuit);
      },
      claimTrial: (circuit, token) => trials.claim(circuit, token),
      startTrial: (circuit, token) => trials.start(circuit, token),
      settleTrial: (circuit, token, result) => {
        trials.settle(circuit, token, result);
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
    return { commands: this.#link.commands, ...this.#stats };
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
    // A refused connection or a failed authentication rejects at once (the client does not
    // retry): connect() answers false, and the store's probe joins the fleet when Redis answers.
    const connecting = Promise.all([
      this.#link.client.connect(),
      this.#link.subscriber.connect(),
    ]).then(() => this.#resync());
    try {
      return await this.#link.bounded(connecting, this.#connectTimeoutMs);
    } catch (error: unknown) {
      this.#degrade(error);
      return false;
    }
  }

  /** The fleet circuit of one tool, made on first use with `rules` (later calls ignore them). */
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
    this.#link.closing();
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    clearTimeout(this.#probeTimer);
    this.#probeTimer = undefined;
    clearInterval(this.#heartbeatTimer);
    this.#heartbeatTimer = undefined;
    await this.#flushing;
    if (this.#dirty.size > 0 && this.#health === 'healthy') await this.#flush();
    this.#health = 'closed';
    this.#link.destroy();
    for (const circuit of this.#circuits.values()) circuit.publish();
  }

  /**
   * While healthy, every `probeIntervalMs`, one command (see FleetHeartbeat): both connections
   * proven alive, and a flushed, evicted or replaced keyspace noticed; every process then writes
   * back the open circuits it holds.
   */
  async #heartbeat(): Promise<void> {
    if (this.#health !== 'healthy' || this.#beating) return;
    this.#beating = true;
    try {
      const generation = await this.#beat.beat();
      if (generation !== this.#generation && this.usable()) {
        this.#logger.warn(
          { generation },
          'the fleet state in Redis was lost (flushed, evicted or replaced); resynchronising',
        );
        if (await this.#resync()) {
          this.#logger.info(
            { generation: this.#generation },
            'fleet state resynchronised after a loss',
          );
        }
      }
    } catch (error: unknown) {
      this.#degrade(error);
    } finally {
      this.#beating = false;
    }
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
    const { names, args } = outcomeBatch(this.#keys, this.processId, batch);
    // The local breakers count every outcome too: while the store is unusable nothing is lost.
    if (this.#health !== 'healthy') return;
    const flushing = (async () => {
      try {
        const reply = await this.#link.eval(recordScript, names, args);
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
    this.#probe(0);
  }

  /**
   * While fallen back: opens what is closed and resynchronises once both connections are ready,
   * first soon, then every `probeIntervalMs`. Unref'd, so it never keeps a process alive.
   */
  #probe(attempt: number): void {
    if (this.#probeTimer !== undefined) return;
    const delay = Math.min(50 * 2 ** Math.min(attempt, 10), this.#probeMs);
    this.#probeTimer = setTimeout(() => {
      this.#probeTimer = undefined;
      if (this.#health !== 'degraded') return;
      this.#link.revive();
      if (this.#link.ready) void this.#resync();
      this.#probe(attempt + 1);
    }, delay).unref();
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
      await this.#beat.subscribe(this.#keys.channel, this.#listener);
      const { held, generation, skipped } = await readFleet({
        link: this.#link,
        keys: this.#keys,
        circuits: this.#circuits.values(),
        processId: this.processId,
      });
      if (this.#health === 'closed') return false;
      this.#generation = generation;
      if (skipped > 0) this.#garbage('(a value over MAX_RECORD_BYTES)');
      const wasDegraded = this.#health === 'degraded';
      this.#health = 'healthy';
      clearTimeout(this.#probeTimer);
      this.#probeTimer = undefined;
      this.#heartbeatTimer ??= setInterval(() => {
        void this.#heartbeat();
      }, this.#probeMs).unref();
      this.#stats.resyncs += 1;
      applyFleet(held, {
        circuits: this.#circuits,
        known: this.#known,
        onGarbage: (tool) => {
          this.#garbage(tool);
        },
      });
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
