// The limiters of src/limits/ as Lua scripts, run atomically inside Redis: every decision is one
// round trip, and every process sharing the Redis sees one state. They keep the in-memory
// limiters' arithmetic exactly (60 per-second counters for the window, integer units for the
// bucket), so a response carries the same figures whichever side answered it. Time comes from
// the caller (its injectable clock), not from Redis: hosts keep their clocks in step with NTP.

/**
 * The sliding window of 60 s: a hash of per-second counters. `window(key, now, limit, count)`
 * counts one request when fewer than `limit` are in the window (count = 1), or only looks
 * (count = 0). Returns { allowed, total, retryAfterSeconds, resetSeconds }.
 */
const WINDOW = `
local function untilLeaves(s, now)
  local t = math.ceil(((s + 60) * 1000 - now) / 1000)
  if t < 1 then return 1 end
  if t > 60 then return 60 end
  return t
end

local function window(key, now, limit, count)
  local second = math.floor(now / 1000)
  local fields = redis.call('HGETALL', key)
  local counts, seconds, total = {}, {}, 0
  for i = 1, #fields, 2 do
    local s, n = tonumber(fields[i]), tonumber(fields[i + 1])
    if s <= second - 60 then
      redis.call('HDEL', key, fields[i])
    else
      counts[s] = n
      total = total + n
      seconds[#seconds + 1] = s
    end
  end
  table.sort(seconds)
  if total >= limit then
    -- Refused, not counted: the wait until enough old counters leave for the count to drop below the limit.
    local retry = 60
    if limit >= 1 then
      local excess = total - limit + 1
      for _, s in ipairs(seconds) do
        excess = excess - counts[s]
        if excess <= 0 then
          retry = untilLeaves(s, now)
          break
        end
      end
    end
    return {0, total, retry, retry}
  end
  if count == 1 then
    redis.call('HINCRBY', key, second, 1)
    redis.call('PEXPIRE', key, 61000)
    total = total + 1
    if counts[second] == nil then
      seconds[#seconds + 1] = second
      table.sort(seconds)
    end
  end
  if total == 0 then return {1, 0, 0, 0} end
  return {1, total, 0, untilLeaves(seconds[1], now)}
end
`;

/**
 * The token bucket in integer units (BucketShape): `bucket(key, now, perToken, perMs, full,
 * take)` takes one token when there is a whole one (take = 1), or only looks (take = 0).
 * Returns { allowed, level }; the caller turns the level into figures (bucketDecision).
 */
const BUCKET = `
local function bucket(key, now, perToken, perMs, full, take)
  local state = redis.call('HMGET', key, 'level', 'at')
  local level, at = full, now
  if state[1] then
    level, at = tonumber(state[1]), tonumber(state[2])
  end
  if now > at then
    level = math.min(full, level + (now - at) * perMs)
    at = now
  end
  local allowed = level >= perToken
  if take == 1 and allowed then
    level = level - perToken
    redis.call('HSET', key, 'level', level, 'at', at)
    -- Gone once refilled to the brim: a full bucket is what an unknown key gets anyway.
    redis.call('PEXPIRE', key, math.ceil((full - level) / perMs) + 1000)
  end
  return {allowed and 1 or 0, level}
end
`;

/** KEYS[1] window; ARGV now, limit, count. */
export const WINDOW_SCRIPT = `${WINDOW}
return window(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))`;

/** KEYS[1] bucket; ARGV now, perToken, perMs, full, take. */
export const BUCKET_SCRIPT = `${BUCKET}
return bucket(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))`;

/**
 * The guard's last step for a client with a burst cap, in one round trip: the burst bucket,
 * then (if it had a token) the window. KEYS[1] bucket, KEYS[2] window; ARGV now, limit,
 * perToken, perMs, full. Returns { burstAllowed, level, window's four figures }; when the
 * burst refused, the window was only looked at.
 */
export const ADMIT_SCRIPT = `${WINDOW}${BUCKET}
local now = tonumber(ARGV[1])
local burst = bucket(KEYS[1], now, tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), 1)
local w = window(KEYS[2], now, tonumber(ARGV[2]), burst[1])
return {burst[1], burst[2], w[1], w[2], w[3], w[4]}`;

/**
 * An Idempotency-Key's in-flight lock is released only by its holder: KEYS[1] lock, ARGV the
 * holder's token.
 */
export const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;
