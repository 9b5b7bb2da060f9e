-- One pipe queue partition's counts for the autoscaling gauges, read in one call (a scrape costs
-- one round trip per partition). All keys are the queue's own, so they share its hash slot.
-- KEYS: BullMQ's wait, paused, prioritized, delayed, active and failed keys.
-- ARGV[1]: the prefix of the queue's job hashes; ARGV[2]: now, in ms.
-- Answers {waiting, delayed, due, active, failed, oldest ready at (ms; -1 when none)}.
local now = tonumber(ARGV[2])
local waiting = redis.call('LLEN', KEYS[1]) + redis.call('LLEN', KEYS[2]) + redis.call('ZCARD', KEYS[3])
local delayed = redis.call('ZCARD', KEYS[4])
-- A delayed job's score is its due time x 0x1000 (BullMQ's getDelayedScore); the bound is the
-- one BullMQ promotes by.
local dueBound = (now + 1) * 0x1000 - 1
local due = redis.call('ZCOUNT', KEYS[4], 0, dueBound)
local oldest = -1
local function older(at)
  if at and (oldest < 0 or at < oldest) then oldest = at end
end
-- Jobs enter the wait list at its head and leave at its tail, so the tail waited longest. It became
-- ready once added plus its first delay, or, having run before (a retry, a rate-limit wait, a
-- stalled run), no earlier than its last start: BullMQ keeps no promotion time.
for i = 1, 2 do
  local id = redis.call('LINDEX', KEYS[i], -1)
  if id then
    local f = redis.call('HMGET', ARGV[1] .. id, 'timestamp', 'opts', 'processedOn')
    local at = tonumber(f[1])
    if at then
      -- The delay it was added with (opts.delay; a backoff's own delay is not it).
      local ok, opts = pcall(cjson.decode, f[2] or '{}')
      local delay = ok and type(opts) == 'table' and tonumber(opts['delay'])
      if delay then at = at + delay end
      local started = tonumber(f[3])
      if started and started > at then at = started end
      older(at)
    end
  end
end
if due > 0 then
  local first = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
  older(math.floor(tonumber(first[2]) / 0x1000))
end
return { waiting, delayed, due, redis.call('LLEN', KEYS[5]), redis.call('ZCARD', KEYS[6]), oldest }
