import { describeThrown } from '@candor/errors';
import { type FleetKeys } from './fleet-keys.ts';
import {
  type FleetHold,
  type FleetRecord,
  parseFleetRecord,
} from './fleet-record.ts';
import { prelude, script } from './fleet-scripts.ts';
import { type FleetStatus, readFleetStatus } from './fleet-status.ts';
import { type RedisLink } from './redis-link.ts';

/**
 * Sets or releases an operator's hold on one tool, fleet-wide. Holding open or closed voids the
 * trial out or claimed (its result finds no lease) and empties the window, so a release starts
 * clean; a release closes the tool, and only removes a hold (a tool open by the fleet's rules
 * stays open). KEYS: states, epochs, lease, window. ARGV: channel, process id, tool, 'open',
 * 'closed' or 'release'. Returns the server time, the record now held, and 1 if it changed.
 */
export const holdScript = script(`${prelude}
local channel, me, tool, action = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local record
if action == 'release' then
  local current = readRecord(KEYS[1], tool)
  local held = false
  if current then
    local ok, decoded = pcall(cjson.decode, current)
    held = ok and type(decoded) == 'table' and (decoded.forced == 'open' or decoded.forced == 'closed')
  end
  if not held then return { now, current or closedRecord(KEYS[2], tool), 0 } end
  redis.call('HDEL', KEYS[1], tool)
  record = { state = 'closed', epoch = nextEpoch(KEYS[2], tool), by = me }
else
  record = { state = action, forced = action, forcedAt = now, epoch = nextEpoch(KEYS[2], tool), by = me }
  if action == 'open' then record.openedAt = now end
  redis.call('HSET', KEYS[1], tool, cjson.encode(record))
end
redis.call('DEL', KEYS[3], KEYS[4])
announce(channel, tool, record)
return { now, cjson.encode(record), 1 }
`);

/**
 * Writes back a hold the server lost (a flush, an eviction, an empty replica), unless the server
 * already holds a state for the tool, or an epoch newer than the hold's: a release (or any
 * transition) made since, while this process was cut off, is never undone. KEYS: states, epochs.
 * ARGV: channel, tool, 'open' or 'closed', forcedAt, the hold's author, the hold's epoch. Returns
 * the server time and the record now held.
 */
export const restoreHoldScript = script(`${prelude}
local channel, tool, forced, forcedAt, by = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local current = readRecord(KEYS[1], tool)
if current then return { now, current } end
if readEpoch(KEYS[2], tool) > (tonumber(ARGV[6]) or 0) then return { now, closedRecord(KEYS[2], tool) } end
local record = { state = forced, forced = forced, forcedAt = forcedAt, epoch = nextEpoch(KEYS[2], tool), by = by }
if forced == 'open' then record.openedAt = forcedAt end
current = cjson.encode(record)
redis.call('HSET', KEYS[1], tool, current)
announce(channel, tool, record)
return { now, current }
`);

/** What {@link FleetControl} needs from its store. */
export interface FleetControlContext {
  readonly link: RedisLink;
  readonly keys: FleetKeys;
  readonly processId: string;
  /** Takes a record Redis answered for one tool (this process applies it at once). */
  apply(tool: string, raw: unknown): void;
}

/**
 * The longest tool name a hold can name: longer fields of the states hash are skipped when a
 * process reads the whole fleet, so a hold on one would not outlive a resync.
 */
export const MAX_TOOL_NAME = 512;

/** Throws a TypeError unless `tool` can be named in the fleet's keys. */
export function checkToolName(tool: unknown): asserts tool is string {
  if (
    typeof tool !== 'string' ||
    tool === '' ||
    tool.length > MAX_TOOL_NAME ||
    tool.includes('\u0000')
  ) {
    throw new TypeError(
      `A fleet override needs a tool name: a non-empty string of at most ${MAX_TOOL_NAME} characters without NUL, got ${typeof tool === 'string' ? JSON.stringify(tool.slice(0, 40)) : typeof tool}`,
    );
  }
}

/**
 * An operator's fleet-wide switches, on every process sharing the store's Redis and prefix: hold a
 * tool open (a kill switch), hold it closed, release the hold, and read every tool's fleet state.
 * A hold reaches every process through the channel transitions already use (within a few ms), is
 * kept in the tool's record in Redis until released, and is written back by the processes holding
 * it when Redis loses its state. Each method rejects when Redis cannot be written or read: the
 * switch was not set, nothing is assumed. See docs/fleet.md, "Operations".
 *
 * @example
 * ```ts
 * const store = createRedisBreakerStore({ url: process.env.REDIS_URL, keyPrefix: 'myapp:' });
 * await store.connect();
 * await store.fleet.forceOpen('web_fetch'); // every process refuses web_fetch
 * await store.fleet.release('web_fetch'); // closed again, with an empty window
 * ```
 */
export class FleetControl {
  readonly #context: FleetControlContext;

  /** Made by the store: use `store.fleet`. @hidden */
  constructor(context: FleetControlContext) {
    this.#context = context;
  }

  /**
   * Holds `tool` open in every process until {@link FleetControl.release}: each call is refused
   * with the breaker's open response (CIRCUIT_OPEN, never run) and no half-open trial runs, however
   * long the reset timeout. Resolves with the record written.
   */
  async forceOpen(tool: string): Promise<FleetRecord> {
    return (await this.#write(tool, 'open')).record;
  }

  /**
   * Holds `tool` closed in every process until {@link FleetControl.release}: every call is
   * admitted whatever the window says (outcomes are still counted, and shown by
   * {@link FleetControl.status}). Resolves with the record written.
   */
  async forceClose(tool: string): Promise<FleetRecord> {
    return (await this.#write(tool, 'closed')).record;
  }

  /**
   * Releases the hold on `tool`: it is closed with an empty window in every process, and the
   * fleet's rules apply again. Resolves `false` (and changes nothing) when the tool held no hold,
   * so a circuit open by the fleet's rules stays open.
   */
  async release(tool: string): Promise<boolean> {
    return (await this.#write(tool, 'release')).changed;
  }

  /** Every tool under the prefix as Redis holds it: state, hold, window counts, trial holder. */
  async status(): Promise<FleetStatus> {
    const { link, keys } = this.#context;
    try {
      return await readFleetStatus(link, keys);
    } catch (error: unknown) {
      throw new Error(
        `the fleet's state could not be read: ${describeThrown(error)}`,
        { cause: error },
      );
    }
  }

  async #write(
    tool: string,
    action: FleetHold | 'release',
  ): Promise<{ record: FleetRecord; changed: boolean }> {
    checkToolName(tool);
    const { link, keys, processId } = this.#context;
    let reply: unknown[];
    try {
      reply = await link.eval(
        holdScript,
        [keys.states, keys.epochs, keys.lease(tool), keys.window(tool)],
        [keys.channel, processId, tool, action],
      );
    } catch (error: unknown) {
      throw new Error(
        `the fleet-wide ${action === 'release' ? 'release' : `hold ${action}`} of "${tool}" was not written: ${describeThrown(error)}`,
        { cause: error },
      );
    }
    const record = parseFleetRecord(reply[1]);
    if (record === undefined) {
      throw new TypeError(
        `Redis holds a state for "${tool}" that is not a breaker record`,
      );
    }
    this.#context.apply(tool, reply[1]);
    return { record, changed: reply[2] === 1 };
  }
}

/** Writes back a hold this process held that Redis lost; resolves with the record now held. */
export async function restoreHold(
  context: Omit<FleetControlContext, 'apply'>,
  tool: string,
  record: FleetRecord,
): Promise<string> {
  const { link, keys, processId } = context;
  const reply = await link.eval(
    restoreHoldScript,
    [keys.states, keys.epochs],
    [
      keys.channel,
      tool,
      record.forced ?? 'open',
      record.forcedAt ?? 0,
      record.by ?? processId,
      record.epoch,
    ],
  );
  return String(reply[1]);
}
