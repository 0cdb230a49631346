import { type FleetKeys } from './fleet-keys.ts';
import {
  type FleetHold,
  type FleetRecord,
  type FleetState,
  parseFleetRecord,
} from './fleet-record.ts';
import {
  GENERATION_FIELD,
  prelude,
  readStatesScript,
  script,
} from './fleet-scripts.ts';
import { type RedisLink } from './redis-link.ts';

/** One tool as the fleet's keys hold it, read by `store.fleet.status()`. */
export interface FleetToolStatus {
  readonly tool: string;
  /**
   * The fleet's state: the tool's record, `closed` when it has none, `unreadable` when what Redis
   * holds there is not a breaker record (that tool uses each process's local breaker).
   */
  readonly state: FleetState | 'unreadable';
  /** The record as Redis holds it (none for a closed tool that is not held closed). */
  readonly record?: FleetRecord;
  /** An operator's hold, if one is set. */
  readonly forced?: FleetHold;
  /**
   * The tool's window key: calls and failures in every bucket it still holds (the fleet drops
   * buckets older than `windowMs` at its next write; the key expires a bucket after the last
   * one), and when it expires. `undefined` when there is no window; `readable: false` when the
   * key is not a window the fleet wrote.
   */
  readonly window?: {
    readonly readable: boolean;
    readonly calls: number;
    readonly failures: number;
    readonly expiresInMs: number;
  };
  /**
   * The trial's lease key: a claim on the coming trial while open, the running trial's lease while
   * half-open. `holder` is the process id (`hostname:pid:random`) in its token.
   */
  readonly trial?: {
    readonly kind: 'claim' | 'lease';
    readonly holder: string;
    readonly expiresInMs: number;
  };
  /**
   * The tool's last epoch: the server's clock (ms) at its last transition, or one more than the
   * epoch before when two came within a millisecond. `undefined` for a tool that never changed.
   */
  readonly lastTransitionAt?: number;
}

/** Every tool of one fleet (one Redis server and prefix), as `store.fleet.status()` reads it. */
export interface FleetStatus {
  /** The server's clock (ms) when the states were read. */
  readonly now: number;
  /** The fleet's generation (docs/fleet.md): another one means the state in Redis was lost. */
  readonly generation: string | undefined;
  /** One entry per tool that has a record, an epoch, a window or a lease key, by name. */
  readonly tools: readonly FleetToolStatus[];
}

/**
 * Every epoch of the epochs hash, skipping values that cannot be one. KEYS: epochs. Returns the
 * server time, then field, epoch, field, epoch…
 */
const epochsScript = script(`${prelude}
local out = { now }
if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then return out end
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if #field <= 512 and redis.call('HSTRLEN', KEYS[1], field) <= 20 then
    local epoch = tonumber(redis.call('HGET', KEYS[1], field))
    if epoch then
      out[#out + 1] = field
      out[#out + 1] = epoch
    end
  end
end
return out
`);

/**
 * One tool's window and lease keys, read under caps (someone else's key may hold anything).
 * KEYS: window, lease. Returns the server time; the window's kind (0 none, 1 a window, 2 not
 * one), calls, failures and PTTL; the lease's token (or nil) and PTTL.
 */
const toolKeysScript = script(`${prelude}
local kind, calls, failures = 0, 0, 0
local windowType = redis.call('TYPE', KEYS[1])['ok']
if windowType == 'hash' and redis.call('HLEN', KEYS[1]) <= 1000 then
  kind = 1
  for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
    local count = #field <= 24 and string.match(field, '^([cf])%d+$')
    if count and redis.call('HSTRLEN', KEYS[1], field) <= 15 then
      local n = tonumber(redis.call('HGET', KEYS[1], field)) or 0
      if count == 'c' then calls = calls + n else failures = failures + n end
    end
  end
elseif windowType ~= 'none' then
  kind = 2
end
local token = false
if redis.call('TYPE', KEYS[2])['ok'] == 'string' and redis.call('STRLEN', KEYS[2]) <= 1024 then
  token = redis.call('GET', KEYS[2])
end
return { now, kind, calls, failures, redis.call('PTTL', KEYS[1]), token, redis.call('PTTL', KEYS[2]) }
`);

/** SCAN's MATCH pattern for `text` itself. */
function literal(text: string): string {
  return text.replace(/[\\*?[\]]/g, '\\$&');
}

/**
 * One round of SCAN, run inside a script: the script goes where its key (the states hash) lives,
 * so on a cluster every round scans the node holding the fleet's slot (a plain SCAN would be sent
 * to whichever node the client picks, each round maybe another). KEYS: states (only to route
 * it). ARGV: cursor, pattern. Returns the server time, the next cursor and the keys found.
 */
const scanScript = script(`${prelude}
local found = redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', 1000)
return { now, found[1], found[2] }
`);

const MAX_SCAN_ROUNDS = 100_000;

/** The tools named by every key of one kind (`keys.window` or `keys.lease`) on the server. */
export async function scanTools(
  link: RedisLink,
  keys: FleetKeys,
  name: (tool: string) => string,
): Promise<string[]> {
  // The tool's place, found from the end: a prefix may hold a NUL itself (a tool name never does).
  const marked = name('\u0000');
  const at = marked.lastIndexOf('\u0000');
  const before = marked.slice(0, at);
  const after = marked.slice(at + 1);
  const pattern = `${literal(before)}*${literal(after)}`;
  const tools: string[] = [];
  let cursor = '0';
  // A full SCAN never hands out a cursor twice, and 100,000 rounds of 1,000 cover 10^8 keys: a
  // server that keeps answering a cursor past either is lying, and status must still end.
  const seen = new Set<string>();
  do {
    if (seen.size >= MAX_SCAN_ROUNDS) {
      throw new TypeError(
        `Redis's SCAN did not finish in ${String(MAX_SCAN_ROUNDS)} rounds`,
      );
    }
    const reply = (
      await link.eval(scanScript, [keys.states], [cursor, pattern])
    ).slice(1);
    if (!Array.isArray(reply) || !Array.isArray(reply[1])) {
      throw new TypeError('Redis answered SCAN with something unexpected');
    }
    cursor = String(reply[0]);
    if (cursor !== '0' && seen.has(cursor)) {
      throw new TypeError(`Redis's SCAN handed out cursor ${cursor} twice`);
    }
    seen.add(cursor);
    for (const key of reply[1] as unknown[]) {
      if (
        typeof key === 'string' &&
        key.length > before.length + after.length
      ) {
        tools.push(key.slice(before.length, key.length - after.length));
      }
    }
  } while (cursor !== '0');
  return tools;
}

/** Pairs of a flat `field, value, field, value…` reply. */
function pairs(flat: readonly unknown[]): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const field = flat[i];
    if (typeof field === 'string') out.push([field, flat[i + 1]]);
  }
  return out;
}

/** Reads every tool of the fleet under `keys` (one round trip per tool, plus the scans). */
export async function readFleetStatus(
  link: RedisLink,
  keys: FleetKeys,
): Promise<FleetStatus> {
  const states = await link.eval(readStatesScript, [keys.states], []);
  const now = states[0] as number;
  const records = new Map(pairs(states.slice(2)));
  const generation = records.get(GENERATION_FIELD);
  records.delete(GENERATION_FIELD);
  const epochs = new Map(
    pairs((await link.eval(epochsScript, [keys.epochs], [])).slice(1)),
  );
  const names = new Set([
    ...records.keys(),
    ...epochs.keys(),
    ...(await scanTools(link, keys, (tool) => keys.window(tool))),
    ...(await scanTools(link, keys, (tool) => keys.lease(tool))),
  ]);
  const tools: FleetToolStatus[] = [];
  for (const tool of [...names].sort()) {
    const raw = records.get(tool);
    const record = raw === undefined ? undefined : parseFleetRecord(raw);
    const [, kind, calls, failures, windowTtl, token, leaseTtl] =
      await link.eval(
        toolKeysScript,
        [keys.window(tool), keys.lease(tool)],
        [],
      );
    const epoch = epochs.get(tool);
    tools.push({
      tool,
      state: raw === undefined ? 'closed' : (record?.state ?? 'unreadable'),
      ...(record === undefined ? {} : { record }),
      ...(record?.forced === undefined ? {} : { forced: record.forced }),
      ...(kind === 0
        ? {}
        : {
            window: {
              readable: kind === 1,
              calls: Number(calls),
              failures: Number(failures),
              expiresInMs: Number(windowTtl),
            },
          }),
      ...(typeof token === 'string'
        ? {
            trial: {
              kind: record?.state === 'half_open' ? 'lease' : 'claim',
              holder: token.includes('#')
                ? token.slice(0, token.lastIndexOf('#'))
                : token,
              expiresInMs: Number(leaseTtl),
            },
          }
        : {}),
      ...(typeof epoch === 'number' ? { lastTransitionAt: epoch } : {}),
    });
  }
  return {
    now,
    generation: typeof generation === 'string' ? generation : undefined,
    tools,
  };
}
