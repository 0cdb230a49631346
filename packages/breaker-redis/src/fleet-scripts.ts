import { createHash } from 'node:crypto';
import { type FleetCircuit } from './fleet-circuit.ts';
import { type FleetKeys } from './fleet-keys.ts';
import { policyLua } from './fleet-policy-lua.ts';

/** A Lua script run with EVALSHA, falling back to EVAL when the server has lost it. */
export interface FleetScript {
  readonly source: string;
  readonly sha: string;
}

/** A script with its SHA-1, for EVALSHA. */
export function script(source: string): FleetScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * How long the states and epochs hashes live without a write or a heartbeat (a day): every key
 * the fleet writes expires, windows and leases much sooner.
 */
export const KEY_TTL_MS = 86_400_000;

/**
 * The field of the states hash that holds the fleet's generation: a random id written when the
 * hash is created. It lives and dies with the records (a flush, an eviction of the hash, a
 * failover to an empty replica), so a process that finds another id, or none, knows the fleet's
 * state was lost. No tool is named with a NUL character.
 */
export const GENERATION_FIELD = '\u0000generation';

/**
 * The largest record (JSON) the fleet reads, in bytes: its own are under 300. A longer value
 * under the prefix is not read, by the scripts or by the process (decoding a 25 MB value costs
 * Redis half a second, which would time every store out): that tool uses its local breaker.
 */
export const MAX_RECORD_BYTES = 2_048;

/** What a script answers for a record it did not read because it is over the cap. */
export const TOO_LARGE = 'not a breaker record: too large';

// Shared by every script: the server's clock (one clock for the whole fleet), the next epoch
// for a tool (monotonic even across a server restart, as it starts from the clock) and the
// record of a closed tool.
export const prelude = `
local GENERATION = '\\0generation'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local MAX_RECORD = ${MAX_RECORD_BYTES}
-- A tool's record, without reading one over the cap (or a field that is not a string).
local function readRecord(states, tool)
  local n = redis.call('HSTRLEN', states, tool)
  if n == 0 then return false end
  if n > MAX_RECORD then return '${TOO_LARGE}' end
  return redis.call('HGET', states, tool)
end
local function readEpoch(epochs, tool)
  if redis.call('HSTRLEN', epochs, tool) > 20 then return 0 end
  return tonumber(redis.call('HGET', epochs, tool)) or 0
end
local function nextEpoch(epochs, tool)
  local e = math.max(now, readEpoch(epochs, tool) + 1)
  redis.call('HSET', epochs, tool, e)
  -- Every key expires: the states (KEYS[1] in every script) and epochs outlive a day of silence.
  redis.call('PEXPIRE', epochs, ${KEY_TTL_MS})
  redis.call('PEXPIRE', KEYS[1], ${KEY_TTL_MS})
  return e
end
local function closedRecord(epochs, tool)
  return cjson.encode({ state = 'closed', epoch = readEpoch(epochs, tool) })
end
local function announce(channel, tool, record)
  redis.call('PUBLISH', channel, cjson.encode({ tool = tool, now = now, record = record }))
end
`;

/**
 * Adds a batch of outcomes to each tool's shared window and opens the tools whose window now
 * breaks the rules. KEYS: states, epochs, then one window per tool. ARGV: channel, process id,
 * then 11 per tool: name, calls, failures, bucketMs, buckets, minimumCalls, failureRatePct, slow
 * calls, slowCallRatePct (0: none is slow), windowCalls (0: the time window) and the outcome
 * digits of a count window (see fleet-policy-lua.ts). Returns the server time, then each tool's
 * record as JSON.
 */
export const recordScript = script(`${prelude}${policyLua}
local channel, me = ARGV[1], ARGV[2]
local out = { now }
local n = (#ARGV - 2) / 11
for i = 0, n - 1 do
  local a = 3 + i * 11
  local tool = ARGV[a]
  local calls, failures = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local bucketMs, buckets = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  local minimum, rate = tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6])
  local slow, slowRate = tonumber(ARGV[a + 7]), tonumber(ARGV[a + 8])
  local windowCalls, outcomes = tonumber(ARGV[a + 9]), ARGV[a + 10]
  local win = KEYS[3 + i]
  local current = readRecord(KEYS[1], tool)
  -- A tool held closed by an operator (see fleet-control.ts): counted, never opened.
  local heldClosed = false
  if current then
    -- A closed record means what no record means; the scripts write one only for a hold.
    local ok, held = pcall(cjson.decode, current)
    if ok and type(held) == 'table' and held.state == 'closed' then
      if held.forced == 'closed' then heldClosed = current else redis.call('HDEL', KEYS[1], tool) end
      current = nil
    end
  end
  local kind = redis.call('TYPE', win)['ok']
  if current then
    out[#out + 1] = current
  elseif kind ~= 'hash' and kind ~= 'none' then
    -- Someone else's key where this tool's window goes: the reply is not a record, so this tool
    -- alone falls back to its local breaker, and the batch's other tools are still counted.
    out[#out + 1] = 'not a breaker window'
  else
    local c, f, s = calls, failures, slow
    -- A count window (fleet-policy-lua.ts), else the time window's buckets, up to its 'end'.
    if windowCalls > 0 then c, f, s = countWindow(win, windowCalls, outcomes) else
    local id = math.floor(now / bucketMs)
    -- Fields this script did not write (another name, an old or future bucket, a count that is
    -- not a plain integer, which HINCRBY would reject) are dropped before counting.
    local fields = redis.call('HGETALL', win)
    for j = 1, #fields, 2 do
      local kind, digits = string.match(fields[j], '^([cfs])(%d+)$')
      local bucket = tonumber(digits)
      local count = string.match(fields[j + 1], '^%d%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?$')
      if bucket == nil or bucket <= id - buckets or bucket > id or count == nil then
        redis.call('HDEL', win, fields[j])
      elseif kind == 'c' then
        c = c + tonumber(count)
      elseif kind == 'f' then
        f = f + tonumber(count)
      else
        s = s + tonumber(count)
      end
    end
    if calls > 0 then
      redis.call('HINCRBY', win, 'c' .. id, calls)
      if failures > 0 then redis.call('HINCRBY', win, 'f' .. id, failures) end
      if slow > 0 then redis.call('HINCRBY', win, 's' .. id, slow) end
      redis.call('PEXPIRE', win, bucketMs * (buckets + 1))
    end
    end -- the time window
    if heldClosed then
      out[#out + 1] = heldClosed
    elseif trips(c, f, s, minimum, rate, slowRate) then
      local record = { state = 'open', openedAt = now, epoch = nextEpoch(KEYS[2], tool), by = me, calls = c, failures = f }
      redis.call('HSET', KEYS[1], tool, cjson.encode(record))
      redis.call('DEL', win)
      announce(channel, tool, record)
      out[#out + 1] = cjson.encode(record)
    else
      out[#out + 1] = closedRecord(KEYS[2], tool)
    end
  end
end
return out
`);

// Every lease this code sets expires: a lease key without an expiry (or of another type) is
// someone else's, and would keep the fleet from ever running a trial.
const leaseCleanup = `
local leaseKind = redis.call('TYPE', KEYS[3])['ok']
if leaseKind ~= 'none' and (leaseKind ~= 'string' or redis.call('PTTL', KEYS[3]) == -1) then
  redis.call('DEL', KEYS[3])
end
`;

// Reads the tool's record; answers as is (so that this tool alone falls back to its local
// breaker) when it is not one of ours with an open timestamp.
export const readOpen = `
local current = readRecord(KEYS[1], tool)
if not current then return { now, closedRecord(KEYS[2], tool), 0 } end
local ok, record = pcall(cjson.decode, current)
if not ok or type(record) ~= 'table' or type(record.openedAt) ~= 'number'
  or (record.state ~= 'open' and record.state ~= 'half_open') then
  return { now, current, 0 }
end
-- Held open by an operator: no trial until the hold is released.
if record.forced then return { now, current, 0 } end
`;

/**
 * Claims the fleet's next half-open trial for one process, ahead of time: the claim (the lease
 * key, with a short expiry) lasts until the trial is due plus claimMs, so the claimant's first
 * call once due runs the trial without a round trip, and a claimant that went quiet holds the
 * fleet back for claimMs at most. KEYS: states, epochs, lease. ARGV: channel, process id, tool,
 * resetTimeoutMs, claimMs, token. Returns the server time, the record, and 1 if granted.
 */
export const claimScript = script(`${prelude}
local channel, me, tool = ARGV[1], ARGV[2], ARGV[3]
local reset, claimMs, token = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
${readOpen}
${leaseCleanup}
local from = now
if record.state == 'open' then from = math.max(now, record.openedAt + reset) end
if not redis.call('SET', KEYS[3], token, 'NX', 'PX', from + claimMs - now) then
  return { now, current, 0 }
end
-- A half-open record whose lease ran out (its holder died) is open again, claimed.
record = { state = 'open', openedAt = record.openedAt, epoch = nextEpoch(KEYS[2], tool), by = record.by, trialBy = me, trialUntil = from + claimMs }
current = cjson.encode(record)
redis.call('HSET', KEYS[1], tool, current)
announce(channel, tool, record)
return { now, current, 1 }
`);

/**
 * Starts the fleet's half-open trial: turns the caller's claim into the trial's lease, or takes a
 * free lease when the trial is due and nobody claimed it. KEYS: states, epochs, lease. ARGV:
 * channel, process id, tool, resetTimeoutMs, leaseMs, token. Returns the server time, the
 * record, and 1 if this process's call is the trial.
 */
export const startScript = script(`${prelude}
local channel, me, tool = ARGV[1], ARGV[2], ARGV[3]
local reset, leaseMs, token = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
${readOpen}
${leaseCleanup}
local held = redis.call('GET', KEYS[3])
if held ~= token then
  if held then return { now, current, 0 } end
  if record.state == 'open' and now < record.openedAt + reset then return { now, current, 0 } end
end
redis.call('SET', KEYS[3], token, 'PX', leaseMs)
record = { state = 'half_open', openedAt = record.openedAt, epoch = nextEpoch(KEYS[2], tool), by = me, leaseAt = now, leaseMs = leaseMs }
current = cjson.encode(record)
redis.call('HSET', KEYS[1], tool, current)
announce(channel, tool, record)
return { now, current, 1 }
`);

/**
 * Ends the fleet's trial with its result, if the caller still holds the lease: success closes the
 * tool (and clears its window) for everyone, failure reopens it. KEYS: states, epochs, lease,
 * window. ARGV: channel, process id, tool, token, 'success' or 'failure'. Returns the server
 * time, the record, and 1 if the result was applied.
 */
export const settleScript = script(`${prelude}
local channel, me, tool, token, result = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if redis.call('GET', KEYS[3]) ~= token then
  return { now, readRecord(KEYS[1], tool) or closedRecord(KEYS[2], tool), 0 }
end
redis.call('DEL', KEYS[3])
local record
if result == 'success' then
  record = { state = 'closed', epoch = nextEpoch(KEYS[2], tool), by = me }
  redis.call('HDEL', KEYS[1], tool)
  redis.call('DEL', KEYS[4])
else
  record = { state = 'open', openedAt = now, epoch = nextEpoch(KEYS[2], tool), by = me }
  redis.call('HSET', KEYS[1], tool, cjson.encode(record))
end
announce(channel, tool, record)
return { now, cjson.encode(record), 1 }
`);

/**
 * Writes back an open circuit the server lost (a restart without persistence), unless the server
 * already holds a state for the tool, or an epoch newer than the record's (the circuit closed
 * since, while this process was cut off: never reopened by a stale memory). KEYS: states,
 * epochs. ARGV: channel, process id, tool, openedAt, the record's epoch. Returns the server time
 * and the record now held.
 */
export const restoreScript = script(`${prelude}
local channel, me, tool, openedAt = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local current = readRecord(KEYS[1], tool)
if current then return { now, current } end
if readEpoch(KEYS[2], tool) > (tonumber(ARGV[5]) or 0) then return { now, closedRecord(KEYS[2], tool) } end
local record = { state = 'open', openedAt = openedAt, epoch = nextEpoch(KEYS[2], tool), by = me }
current = cjson.encode(record)
redis.call('HSET', KEYS[1], tool, current)
announce(channel, tool, record)
return { now, current }
`);

/**
 * The keys and arguments of {@link recordScript} for a batch of circuits, taking their pending
 * outcomes (the circuits' counts start again from zero).
 */
export function outcomeBatch(
  keys: FleetKeys,
  processId: string,
  batch: readonly FleetCircuit[],
): { names: string[]; args: (string | number)[] } {
  const names = [keys.states, keys.epochs];
  const args: (string | number)[] = [keys.channel, processId];
  for (const circuit of batch) {
    const { rules } = circuit;
    names.push(keys.window(circuit.tool));
    args.push(
      circuit.tool,
      circuit.pendingCalls,
      circuit.pendingFailures,
      rules.windowMs / rules.buckets,
      rules.buckets,
      rules.minimumCalls,
      rules.failureRatePct,
      circuit.pendingSlow,
      rules.slowCallRatePct ?? 0,
      rules.windowCalls ?? 0,
      circuit.pendingOutcomes,
    );
    circuit.pendingCalls = 0;
    circuit.pendingFailures = 0;
    circuit.pendingSlow = 0;
    circuit.pendingOutcomes = '';
  }
  return { names, args };
}

/**
 * Reads the fleet's generation, writing `candidate` when there is none, and keeps the states and
 * epochs alive; with a channel and a message, publishes the message there (the heartbeat: one
 * script that proves both connections alive). KEYS: states, epochs. ARGV: candidate, [channel,
 * message]. Returns the server time and the generation.
 */
export const generationScript = script(`${prelude}
local g = readRecord(KEYS[1], GENERATION)
if not g then
  redis.call('HSET', KEYS[1], GENERATION, ARGV[1])
  g = ARGV[1]
end
redis.call('PEXPIRE', KEYS[1], ${KEY_TTL_MS})
redis.call('PEXPIRE', KEYS[2], ${KEY_TTL_MS})
if ARGV[2] then
  redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return { now, g }
`);

/**
 * Reads every record of the states hash, skipping values over the cap (named with a short
 * marker when the name is short enough to be a tool's). KEYS: states. Returns the server time,
 * how many values were skipped, then field, value, field, value…
 */
export const readStatesScript = script(`${prelude}
local out = { now, 0 }
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if #field <= 512 and redis.call('HSTRLEN', KEYS[1], field) <= MAX_RECORD then
    out[#out + 1] = field
    out[#out + 1] = redis.call('HGET', KEYS[1], field)
  else
    out[2] = out[2] + 1
    if #field <= 512 then
      out[#out + 1] = field
      out[#out + 1] = '${TOO_LARGE}'
    end
  end
end
return out
`);
