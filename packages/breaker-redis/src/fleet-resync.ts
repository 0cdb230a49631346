import { randomBytes } from 'node:crypto';
import { type FleetCircuit } from './fleet-circuit.ts';
import { restoreHold } from './fleet-control.ts';
import { type FleetRecord, parseFleetRecord } from './fleet-record.ts';
import { type FleetKeys } from './fleet-keys.ts';
import {
  GENERATION_FIELD,
  generationScript,
  readStatesScript,
  restoreScript,
} from './fleet-scripts.ts';
import { type RedisLink } from './redis-link.ts';

/**
 * Reads the whole fleet state again (the server's clock first) and writes back the open circuits
 * this process knew of that Redis no longer holds (it restarted empty). Resolves with every
 * tool's raw record; throws when Redis cannot be used.
 */
export async function readFleet({
  link,
  keys,
  circuits,
  processId,
}: {
  readonly link: RedisLink;
  readonly keys: FleetKeys;
  readonly circuits: Iterable<FleetCircuit>;
  readonly processId: string;
}): Promise<{
  held: Map<string, string>;
  generation: string;
  skipped: number;
}> {
  await link.readClock();
  const generation = await readGeneration(link, keys);
  // Every script reads the epochs: a key of another type there would fail each batch, and
  // the store would bounce between healthy and fallen back. WRONGTYPE fails the resync.
  await link.command(['HLEN', keys.epochs]);
  // A script, not HGETALL: values over the cap never cross the wire (see MAX_RECORD_BYTES).
  const reply = await link.eval(readStatesScript, [keys.states], []);
  const skipped = Number(reply[1]);
  const held = new Map(toEntries(reply.slice(2)));
  held.delete(GENERATION_FIELD);
  for (const circuit of circuits) {
    const record = circuit.shared;
    // An operator's hold outlives a lost state too (closed ones included).
    if (record?.forced !== undefined && !held.has(circuit.tool)) {
      const context = { link, keys, processId };
      held.set(circuit.tool, await restoreHold(context, circuit.tool, record));
      continue;
    }
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
    const restored = await link.eval(
      restoreScript,
      [keys.states, keys.epochs],
      [keys.channel, processId, circuit.tool, openedAt, record.epoch],
    );
    held.set(circuit.tool, String(restored[1]));
  }
  return { held, generation, skipped };
}

/**
 * The fleet's generation (written now if the states hash has none), keeping the states and
 * epochs alive; with `publish`, publishes its message on its channel in the same script. Another
 * answer than the one last read means the fleet's state was lost.
 */
export async function readGeneration(
  link: RedisLink,
  keys: FleetKeys,
  publish?: { readonly channel: string; readonly message: string },
): Promise<string> {
  const reply = await link.eval(
    generationScript,
    [keys.states, keys.epochs],
    [
      randomBytes(8).toString('hex'),
      ...(publish === undefined ? [] : [publish.channel, publish.message]),
    ],
  );
  const generation = reply[1];
  if (typeof generation !== 'string') {
    throw new TypeError(
      'Redis answered the generation with something unexpected',
    );
  }
  return generation;
}

/**
 * Applies a full read of the fleet: each circuit takes its tool's record (a tool with none is
 * closed), records of tools without a circuit here are kept in `known` for when one is made.
 */
export function applyFleet(
  held: ReadonlyMap<string, string>,
  here: {
    readonly circuits: ReadonlyMap<string, FleetCircuit>;
    readonly known: Map<string, FleetRecord | undefined>;
    readonly onGarbage: (tool: string) => void;
  },
): void {
  const { circuits, known, onGarbage } = here;
  known.clear();
  for (const [tool, raw] of held) {
    const record = parseFleetRecord(raw);
    if (record === undefined) onGarbage(tool);
    const circuit = circuits.get(tool);
    if (circuit === undefined) known.set(tool, record);
    else circuit.apply(record, { force: true });
  }
  for (const circuit of circuits.values()) {
    if (!held.has(circuit.tool)) {
      circuit.apply({ state: 'closed', epoch: 0 }, { force: true });
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
