/**
 * The Lua the record script uses for the breaker's policies (resilience4j's count window and
 * slow calls): kept apart from the scripts themselves so they stay readable. Spliced into the
 * record script after the shared prelude.
 */

/** How long a count window lives without a call: it holds the last N calls however old. */
export const COUNT_WINDOW_TTL_MS = 86_400_000;

/**
 * The outcome of one call in a count window's sequence, as the process sends it: a digit, bit 1
 * failed and bit 2 slow.
 */
export function outcomeDigit(failed: boolean, slow: boolean): string {
  return String((failed ? 1 : 0) + (slow ? 2 : 0));
}

export const policyLua = `
-- A count of the window's hash written by this script: a short run of digits, else nil.
local function readCount(win, field)
  if redis.call('HSTRLEN', win, field) > 15 then return nil end
  local v = redis.call('HGET', win, field)
  if not v or not string.match(v, '^%d+$') then return nil end
  return tonumber(v)
end
-- The last \`size\` calls of the fleet (resilience4j's COUNT_BASED), however old: one field per
-- place of a ring (p0, p1, ...) holding an outcome digit, and the totals beside it (c calls held,
-- f failures, s slow calls, n the next place). \`outcomes\` is the batch's digits, oldest first.
-- Totals that are not ours (or that disagree) start the window again. Returns the totals.
local function countWindow(win, size, outcomes)
  local held, f, s, at = readCount(win, 'c'), readCount(win, 'f'), readCount(win, 's'), readCount(win, 'n')
  if not (held and f and s and at) or held > size or at >= size or f > held or s > held then
    redis.call('DEL', win)
    held, f, s, at = 0, 0, 0, 0
  end
  for j = 1, #outcomes do
    local o = string.byte(outcomes, j) - 48
    if o < 0 or o > 3 then o = 0 end
    local place = 'p' .. at
    if held == size then
      local old = 0
      if redis.call('HSTRLEN', win, place) == 1 then old = tonumber(redis.call('HGET', win, place)) or 0 end
      if old % 2 == 1 then f = math.max(0, f - 1) end
      if old >= 2 then s = math.max(0, s - 1) end
    else
      held = held + 1
    end
    redis.call('HSET', win, place, o)
    if o % 2 == 1 then f = f + 1 end
    if o >= 2 then s = s + 1 end
    at = (at + 1) % size
  end
  if #outcomes > 0 then
    redis.call('HSET', win, 'n', at, 'c', held, 'f', f, 's', s)
    redis.call('PEXPIRE', win, ${COUNT_WINDOW_TTL_MS})
  end
  return held, f, s
end
-- The closed window's rule: enough calls, and a failure rate strictly above its threshold or
-- (when slow calls count, slowRate > 0) a slow rate at or above its own (resilience4j's rule).
local function trips(c, f, s, minimum, rate, slowRate)
  if c < minimum then return false end
  return f * 100 > rate * c or (slowRate > 0 and s * 100 >= slowRate * c)
end
`;
