import { prelude, readOpen, script } from './fleet-scripts.ts';

/**
 * The half-open trials of a tool whose breaker permits more than one (`permittedCallsInHalfOpen`
 * above 1, resilience4j's rule): N slots kept in the tool's record itself, so one script reads
 * and writes them with the state, atomically. The record (open or half-open) holds `permitted`
 * (N) and `trials`, each taken slot's token → when it runs out (server ms): a claim taken ahead
 * while open lasts until the trial is due plus `trialClaimMs`, a running trial's lease
 * `timeoutMs + graceMs`. A half-open record also holds `trialsEnded`, `trialsFailed` and
 * `trialsSlow`, the results so far. A slot whose holder dies or goes quiet runs out with it and
 * is free again; a result that finds its slot gone decides nothing. A breaker permitting one
 * trial keeps the lease key of fleet-scripts.ts instead.
 */

/** The most trials a fleet permits at once: every slot's token lives in the record, which is capped. */
export const MAX_FLEET_TRIALS = 20;

// The live slots of a record (the expired ones dropped), and how many there are.
const slotsLua = `
local function liveTrials(record)
  local trials, live = {}, 0
  if type(record.trials) == 'table' then
    for token, untilMs in pairs(record.trials) do
      if type(token) == 'string' and type(untilMs) == 'number' and untilMs > now and live < ${MAX_FLEET_TRIALS} then
        trials[token] = untilMs
        live = live + 1
      end
    end
  end
  return trials, live
end
local function count(record, field)
  if record.state ~= 'half_open' then return 0 end
  local n = record[field]
  if type(n) ~= 'number' or n < 0 then return 0 end
  return math.floor(n)
end
`;

/**
 * Claims one of the coming half-open slots for one process while the tool is open, ahead of
 * time, so that process's first call once due runs its trial without a round trip. KEYS:
 * states, epochs, lease. ARGV: channel, process id, tool, resetTimeoutMs, claimMs, token,
 * permitted. Returns the server time, the record, and 1 if granted.
 */
export const slotClaimScript = script(`${prelude}${slotsLua}
local channel, me, tool = ARGV[1], ARGV[2], ARGV[3]
local reset, claimMs, token = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local permitted = tonumber(ARGV[7])
${readOpen}
if record.state ~= 'open' then return { now, current, 0 } end
local trials, live = liveTrials(record)
if live >= permitted then return { now, current, 0 } end
trials[token] = math.max(now, record.openedAt + reset) + claimMs
record = { state = 'open', openedAt = record.openedAt, epoch = nextEpoch(KEYS[2], tool), by = record.by, permitted = permitted, trials = trials }
current = cjson.encode(record)
redis.call('HSET', KEYS[1], tool, current)
announce(channel, tool, record)
return { now, current, 1 }
`);

/**
 * Starts one trial once the tool is due (open past its reset timeout, or half-open): turns the
 * caller's claim into the trial's lease, or takes a free slot (N less the live slots and the
 * trials that ended). KEYS: states, epochs, lease. ARGV: channel, process id, tool,
 * resetTimeoutMs, leaseMs, token, permitted. Returns the server time, the record, and 1 if this
 * call is one of the trials.
 */
export const slotStartScript = script(`${prelude}${slotsLua}
local channel, me, tool = ARGV[1], ARGV[2], ARGV[3]
local reset, leaseMs, token = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local permitted = tonumber(ARGV[7])
${readOpen}
local trials, live = liveTrials(record)
local ended = count(record, 'trialsEnded')
-- The caller's own claim is its slot of this round, taken when its view found the trial due (as
-- with one trial: its estimate of this clock may run a millisecond ahead). Anyone else needs the
-- trial due here and a free slot.
if not trials[token] then
  if record.state == 'open' and now < record.openedAt + reset then return { now, current, 0 } end
  if live + ended >= permitted then return { now, current, 0 } end
end
trials[token] = now + leaseMs
record = { state = 'half_open', openedAt = record.openedAt, epoch = nextEpoch(KEYS[2], tool), by = me, leaseAt = now, leaseMs = leaseMs, permitted = permitted, trials = trials, trialsEnded = ended, trialsFailed = count(record, 'trialsFailed'), trialsSlow = count(record, 'trialsSlow') }
current = cjson.encode(record)
redis.call('HSET', KEYS[1], tool, current)
announce(channel, tool, record)
return { now, current, 1 }
`);

/**
 * Counts one trial's result, if its slot is still live, and decides as the local breaker's
 * policy does (resilience4j's rule): the failure rate, or the slow rate, of the N permitted
 * trials at or above its threshold reopens at once; else the N-th result closes (and clears the
 * window). KEYS: states, epochs, lease, window. ARGV: channel, process id, tool, token, failed
 * (1/0), slow (1/0), permitted, failureRatePct, slowCallRatePct (0: none is slow). Returns the
 * server time, the record, and 1 if the result was counted.
 */
export const slotSettleScript = script(`${prelude}${slotsLua}
local channel, me, tool, token = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local failed, slow = tonumber(ARGV[5]), tonumber(ARGV[6])
local permitted, rate, slowRate = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local current = readRecord(KEYS[1], tool)
if not current then return { now, closedRecord(KEYS[2], tool), 0 } end
local ok, record = pcall(cjson.decode, current)
if not ok or type(record) ~= 'table' or record.state ~= 'half_open' or record.forced
  or type(record.openedAt) ~= 'number' then
  return { now, current, 0 }
end
local trials = liveTrials(record)
if not trials[token] then return { now, current, 0 } end
trials[token] = nil
local ended = count(record, 'trialsEnded') + 1
local f = count(record, 'trialsFailed') + failed
local s = count(record, 'trialsSlow') + slow
if f * 100 >= rate * permitted or (slowRate > 0 and s * 100 >= slowRate * permitted) then
  record = { state = 'open', openedAt = now, epoch = nextEpoch(KEYS[2], tool), by = me }
  redis.call('HSET', KEYS[1], tool, cjson.encode(record))
elseif ended >= permitted then
  record = { state = 'closed', epoch = nextEpoch(KEYS[2], tool), by = me }
  redis.call('HDEL', KEYS[1], tool)
  redis.call('DEL', KEYS[4])
else
  record = { state = 'half_open', openedAt = record.openedAt, epoch = nextEpoch(KEYS[2], tool), by = record.by, leaseAt = record.leaseAt, leaseMs = record.leaseMs, permitted = permitted, trials = trials, trialsEnded = ended, trialsFailed = f, trialsSlow = s }
  redis.call('HSET', KEYS[1], tool, cjson.encode(record))
end
announce(channel, tool, record)
return { now, cjson.encode(record), 1 }
`);
