-- Token bucket, one per key, refilled continuously from Redis server time so that every web and
-- worker process shares one clock and one budget.
-- KEYS[1]  bucket key (hash: tokens, ts)
-- ARGV[1]  capacity (tokens, the burst)
-- ARGV[2]  refill rate (tokens per second)
-- ARGV[3]  cost of this request (tokens); clamped to capacity so an expensive request is slow,
--          never impossible
-- Returns { allowed (1/0), remaining tokens (floor), retry after (ms, 0 when allowed),
--           time until full again (ms) }
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = math.min(tonumber(ARGV[3]), capacity)

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2]) -- microseconds

local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end

tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate / 1000000)

local allowed = 0
local retry_us = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  retry_us = math.ceil((cost - tokens) * 1000000 / rate)
end

redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'ts', string.format('%d', now))
local full_us = math.ceil((capacity - tokens) * 1000000 / rate)
-- A full bucket is the same as no bucket: let idle keys expire.
redis.call('PEXPIRE', KEYS[1], math.ceil(full_us / 1000) + 1000)

return { allowed, math.floor(tokens), math.ceil(retry_us / 1000), math.ceil(full_us / 1000) }
