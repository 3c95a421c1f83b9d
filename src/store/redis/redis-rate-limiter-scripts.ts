/**
 * The Lua halves of RedisRateLimiter. Each runs atomically in Redis (a script blocks every other
 * command), which is what makes check-and-charge safe across gateway processes: nothing is read
 * into Node and written back. Time is the caller's `now`, never Redis TIME, so the window rules
 * are exactly those of src/limits/rate-limit-window.ts (per-second buckets over 60 s); the key
 * expiries set here are housekeeping only and never decide a limit.
 *
 * Keys per scope: a hash of requests per second, a hash of tokens per second (field = epoch second),
 * and a sorted set of open lease ids scored by their expiresAt. Plus one key per open lease, whose
 * value is its expiresAt, so release is idempotent across processes.
 */

/**
 * KEYS: lease key, then per scope: requests hash, tokens hash, leases sorted set.
 * ARGV: now, lease id, expiresAt, estimatedTokens, window key ttl ms, lease key ttl ms,
 *       then per scope: requestsPerMinute, tokensPerMinute, concurrentRequests (0 = unlimited).
 * Returns {1, counts…} when admitted, or {0, kind (1 requests, 2 tokens, 3 concurrency), scope
 * index (0-based), retryAfterSeconds, counts…} naming the limit that frees last. A full
 * concurrency limit frees when its earliest lease expires unless renewed (docs/decisions/0020), so
 * that is its retry-after. The counts are, per scope, what its requests and tokens windows held
 * before this request was charged, each as total and newest counted second (-1 for none), read in
 * the same step so the client's rate-limit headers cost no other call (docs/decisions/0149).
 */
export const ACQUIRE_RATE_LIMIT_SCRIPT = `
local now = tonumber(ARGV[1])
local second = math.floor(now / 1000)
local oldest = second - 59
local estimate = tonumber(ARGV[4])
local scopeCount = (#KEYS - 1) / 3

local function counted(key)
  local flat = redis.call('HGETALL', key)
  local buckets, stale, total, newest = {}, {}, 0, -1
  for index = 1, #flat, 2 do
    local bucket, amount = tonumber(flat[index]), tonumber(flat[index + 1])
    if bucket >= oldest then
      buckets[#buckets + 1] = { bucket, amount }
      total = total + amount
      if bucket > newest then newest = bucket end
    else
      stale[#stale + 1] = flat[index]
    end
  end
  return buckets, total, stale, newest
end

local function secondsUntilBelow(buckets, total, limit)
  table.sort(buckets, function(left, right) return left[1] < right[1] end)
  local remaining = total
  for _, entry in ipairs(buckets) do
    remaining = remaining - entry[2]
    if remaining < limit then
      return math.max(1, math.ceil(((entry[1] + 60) * 1000 - now) / 1000))
    end
  end
  return 1
end

local refusal = nil
local function refuse(kind, scope, retryAfter)
  if refusal == nil or retryAfter > refusal[4] then
    refusal = { 0, kind, scope, retryAfter }
  end
end

local stale = {}
local counts = {}
for scope = 0, scopeCount - 1 do
  local requestsLimit = tonumber(ARGV[7 + scope * 3])
  local tokensLimit = tonumber(ARGV[8 + scope * 3])
  local concurrencyLimit = tonumber(ARGV[9 + scope * 3])
  local requestsTotal, requestsNewest, tokensTotal, tokensNewest = 0, -1, 0, -1
  if requestsLimit > 0 then
    local buckets, total, old, newest = counted(KEYS[2 + scope * 3])
    stale[2 + scope * 3] = old
    requestsTotal, requestsNewest = total, newest
    if total >= requestsLimit then refuse(1, scope, secondsUntilBelow(buckets, total, requestsLimit)) end
  end
  if tokensLimit > 0 then
    local buckets, total, old, newest = counted(KEYS[3 + scope * 3])
    stale[3 + scope * 3] = old
    tokensTotal, tokensNewest = total, newest
    if total >= tokensLimit then refuse(2, scope, secondsUntilBelow(buckets, total, tokensLimit)) end
  end
  counts[#counts + 1] = requestsTotal
  counts[#counts + 1] = requestsNewest
  counts[#counts + 1] = tokensTotal
  counts[#counts + 1] = tokensNewest
  if concurrencyLimit > 0 then
    local key = KEYS[4 + scope * 3]
    local open = redis.call('ZCOUNT', key, '(' .. ARGV[1], '+inf')
    if open >= concurrencyLimit then
      -- A slot frees at the latest when the earliest open lease expires unrenewed.
      local first = redis.call('ZRANGEBYSCORE', key, '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
      refuse(3, scope, math.max(1, math.ceil((tonumber(first[2]) - now) / 1000)))
    end
  end
end
if refusal ~= nil then
  for _, count in ipairs(counts) do refusal[#refusal + 1] = count end
  return refusal
end

local function charge(key, amount)
  local old = stale[key]
  if old ~= nil and #old > 0 then redis.call('HDEL', KEYS[key], unpack(old)) end
  redis.call('HINCRBY', KEYS[key], second, amount)
  redis.call('PEXPIRE', KEYS[key], ARGV[5])
end

for scope = 0, scopeCount - 1 do
  if tonumber(ARGV[7 + scope * 3]) > 0 then charge(2 + scope * 3, 1) end
  if tonumber(ARGV[8 + scope * 3]) > 0 and estimate > 0 then charge(3 + scope * 3, estimate) end
  if tonumber(ARGV[9 + scope * 3]) > 0 then
    local key = KEYS[4 + scope * 3]
    redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[1])
    redis.call('ZADD', key, ARGV[3], ARGV[2])
    redis.call('PEXPIRE', key, ARGV[6])
  end
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[6])
local admitted = { 1 }
for _, count in ipairs(counts) do admitted[#admitted + 1] = count end
return admitted
`;

/**
 * KEYS: lease key, then per scope of the lease: tokens hash, leases sorted set.
 * ARGV: now, lease id, acquiredAt, estimatedTokens, actualTokens, window key ttl ms,
 *       then per scope: 1 when it has a tokens limit else 0, same for concurrency.
 * Returns 1 when the lease was open, 0 when it was already released or had expired.
 * The token correction follows src/limits/memory-rate-limiter.ts `correctTokenCharge`.
 */
export const RELEASE_RATE_LIMIT_SCRIPT = `
local expiresAt = redis.call('GET', KEYS[1])
if not expiresAt then return 0 end
redis.call('DEL', KEYS[1])
local now = tonumber(ARGV[1])
local scopeCount = (#KEYS - 1) / 2
for scope = 0, scopeCount - 1 do
  if ARGV[8 + scope * 2] == '1' then redis.call('ZREM', KEYS[3 + scope * 2], ARGV[2]) end
end
if tonumber(expiresAt) <= now then return 0 end

local difference = tonumber(ARGV[5]) - tonumber(ARGV[4])
if difference == 0 then return 1 end
local second = math.floor(now / 1000)
local charged = math.floor(tonumber(ARGV[3]) / 1000)
for scope = 0, scopeCount - 1 do
  if ARGV[7 + scope * 2] == '1' then
    local key = KEYS[2 + scope * 2]
    if charged >= second - 59 then
      if redis.call('HINCRBY', key, charged, difference) <= 0 then redis.call('HDEL', key, charged) end
      redis.call('PEXPIRE', key, ARGV[6])
    elseif difference > 0 then
      redis.call('HINCRBY', key, second, difference)
      redis.call('PEXPIRE', key, ARGV[6])
    end
  end
end
return 1
`;

/**
 * The heartbeat (docs/decisions/0020): pushes the expiry of leases still held by this process, in
 * one call for all of them. A lease that is gone (released elsewhere) or already past its expiry is
 * not revived: its slot may be someone else's by now.
 * KEYS: per lease: its lease key, then the leases sorted sets of its concurrency scopes.
 * ARGV: now, new expiresAt, lease key ttl ms, then per lease: lease id, how many sorted sets.
 * Returns one 1 (renewed) or 0 (gone) per lease, in order.
 */
export const RENEW_RATE_LIMIT_LEASES_SCRIPT = `
local now = tonumber(ARGV[1])
local renewed = {}
local key = 1
for argument = 4, #ARGV, 2 do
  local id, sets = ARGV[argument], tonumber(ARGV[argument + 1])
  local expiresAt = redis.call('GET', KEYS[key])
  if expiresAt and tonumber(expiresAt) > now then
    redis.call('SET', KEYS[key], ARGV[2], 'PX', ARGV[3])
    for set = key + 1, key + sets do
      redis.call('ZADD', KEYS[set], 'XX', ARGV[2], id)
      redis.call('PEXPIRE', KEYS[set], ARGV[3])
    end
    renewed[#renewed + 1] = 1
  else
    renewed[#renewed + 1] = 0
  end
  key = key + 1 + sets
end
return renewed
`;
