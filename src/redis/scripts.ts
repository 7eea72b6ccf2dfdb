// The limiters of src/limits/ as Lua scripts, run atomically inside Redis: every decision is one
// round trip, and every process sharing the Redis sees one state. They keep the in-memory
// limiters' arithmetic exactly (60 per-second counters for the window, integer units for the
// bucket), so a response carries the same figures whichever side answered it. Time comes from
// the caller (its injectable clock), not from Redis: hosts keep their clocks in step with NTP.

/**
 * The sliding window of 60 s, as the in-memory one keeps it: a ring of 60 per-second counters
 * (fields "0".."59", second % 60) beside the second the ring is at (h), the total (t) and the
 * oldest second with a count (o), so a request in the same second costs a few field reads and
 * writes, whatever the limit. `window(key, now, limit, count)` counts one request when fewer
 * than `limit` are in the window (count = 1), or only looks (count = 0). Returns { allowed,
 * total, retryAfterSeconds, resetSeconds }.
 */
const WINDOW = `
local function untilLeaves(s, now)
  local t = math.ceil(((s + 60) * 1000 - now) / 1000)
  if t < 1 then return 1 end
  if t > 60 then return 60 end
  return t
end

local function slot(key, s)
  return tonumber(redis.call('HGET', key, s % 60)) or 0
end

local function window(key, now, limit, count)
  local second = math.floor(now / 1000)
  local state = redis.call('HMGET', key, 'h', 't', 'o')
  local head, total, oldest = tonumber(state[1]), tonumber(state[2]) or 0, tonumber(state[3]) or second
  if head == nil then head = second end
  -- Drop the counters of seconds that slid out; a clock behind the ring keeps counting into its head.
  if second > head then
    if second - head >= 60 then
      redis.call('DEL', key)
      total = 0
    else
      for s = head + 1, second do
        local n = slot(key, s)
        if n > 0 then
          total = total - n
          redis.call('HDEL', key, s % 60)
        end
      end
    end
    head = second
    if total > 0 and oldest <= second - 60 then
      local s = second - 59
      while slot(key, s) == 0 do s = s + 1 end
      oldest = s
    end
  end
  if total >= limit then
    -- Refused, not counted: the wait until enough old counters leave for the count to drop below the limit.
    local retry = 60
    if limit >= 1 then
      local excess = total - limit + 1
      local s = oldest
      while true do
        excess = excess - slot(key, s)
        if excess <= 0 then break end
        s = s + 1
      end
      retry = untilLeaves(s, now)
    end
    redis.call('HSET', key, 'h', head, 't', total, 'o', oldest)
    redis.call('PEXPIRE', key, 61000)
    return {0, total, retry, retry}
  end
  if count == 1 then
    redis.call('HINCRBY', key, head % 60, 1)
    if total == 0 then oldest = head end
    total = total + 1
  end
  if total == 0 then
    redis.call('DEL', key)
    return {1, 0, 0, 0}
  end
  redis.call('HSET', key, 'h', head, 't', total, 'o', oldest)
  redis.call('PEXPIRE', key, 61000)
  return {1, total, 0, untilLeaves(oldest, now)}
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
 * The guard's last step for every request that arrived in one turn of a process's event loop,
 * in one script run: per request, its burst bucket (when it has one) then, if that had a
 * token, its window. KEYS: per request its bucket and its window key. ARGV: per request now,
 * limit, hasBurst (1/0), perToken, perMs, full. Returns, per request, { burstAllowed, level,
 * the window's four figures }; when the burst refused, the window was only looked at. Taken in
 * order inside one atomic run, the decisions are those of the requests one at a time.
 */
export const ADMIT_SCRIPT = `${WINDOW}${BUCKET}
local out = {}
for i = 1, #KEYS / 2 do
  local a = (i - 1) * 6
  local now = tonumber(ARGV[a + 1])
  local allowed, level = 1, 0
  if ARGV[a + 3] == '1' then
    local burst = bucket(KEYS[2 * i - 1], now, tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6]), 1)
    allowed, level = burst[1], burst[2]
  end
  local w = window(KEYS[2 * i], now, tonumber(ARGV[a + 2]), allowed)
  out[#out + 1] = allowed
  out[#out + 1] = level
  for j = 1, 4 do out[#out + 1] = w[j] end
end
return out`;

/**
 * An Idempotency-Key's in-flight lock is released only by its holder: KEYS[1] lock, ARGV the
 * holder's token.
 */
export const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;
