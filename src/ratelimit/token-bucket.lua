-- Token bucket, one per key, refilled continuously from Redis server time so that every web and
-- worker process shares one clock and one budget.
-- KEYS[1]  bucket key (string "<tokens> <last refill, µs>", expiring once the bucket is full again)
-- KEYS[2]  reservation key, optional (a delivered message's, ratelimit/token-bucket.ts): a refused
--          request reserves: the bucket goes into debt by its cost, the key records the payment and
--          its turn (Redis time, µs: when the debt is repaid) for ARGV[7] ms beyond the wait, and the
--          wait is until that turn. A request that finds the key has paid: from its turn on it
--          passes free (the key is deleted); before its turn it is told to wait the rest, and keeps
--          the key. Why: refused messages that only retried later woke together, were refused again
--          and again, and each try cost a render and a store write; a reservation makes a backlog
--          wait in line, once each. And a message sent after its turn breaks the bucket's promise
--          (its token was counted at the turn), so it may come back early and wait for it.
-- ARGV[1]  capacity (tokens, the burst)
-- ARGV[2]  refill rate (tokens per second)
-- ARGV[3]  cost of this request (tokens); clamped to capacity so an expensive request is slow,
--          never impossible
-- ARGV[4]  lease wanted (tokens), optional: tokens the calling process takes now to spend on its
--          next requests without a call (ratelimit/bucket-leases.ts); granted only when the
--          request is allowed, and at most 1/ARGV[6] of what the bucket holds after it
-- ARGV[5]  refund (tokens), optional: leased tokens the process did not spend, put back first
-- ARGV[6]  lease share divisor, optional (see ARGV[4])
-- ARGV[7]  how long a reservation is kept after its wait (ms), with KEYS[2]
-- ARGV[8]  '1': a look ahead, with KEYS[2]: a request that would be allowed takes nothing (it is
--          taken again, for real, later); one that would be refused reserves as above. For a
--          worker that takes a message's tokens at the send, after the render, but would not
--          render a message only to put it off.
-- ARGV[9]  how late after its turn a reservation may still be claimed (ms), with KEYS[2]. Later,
--          it has lapsed: its token was counted at the turn, and sent now it would land on top of
--          what the bucket has given out since (a backlog that came back late, all at once, would
--          reach the upstream as a burst past the bucket's capacity). The request then takes as
--          if it held nothing: allowed if the bucket has the tokens now, else a new turn. A
--          message lapses once at most: its new turn is written negated and never lapses (a
--          backlog whose claims all came late would otherwise pay twice for every turn and never
--          get out of debt). A kept payment (turn 0, rememberPayment) never lapses: it is kept only
--          while it is as good as one made now.
-- Returns { allowed (1/0), remaining tokens (floor), retry after (ms, 0 when allowed),
--           time until full again (ms), lease granted (tokens), reserved (1/0) }
-- A string with SET ... PX takes one command where a hash took two (HSET, PEXPIRE): this script
-- runs for every accepted pipe message, delivered message and bot call.
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = math.min(tonumber(ARGV[3]), capacity)
local want = tonumber(ARGV[4] or '0')
local refund = tonumber(ARGV[5] or '0')
local share = tonumber(ARGV[6] or '1')
local reservation = KEYS[2]
local peek = ARGV[8] == '1'

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2]) -- microseconds

-- pcall: a key of another type (a bucket stored as a hash by an older Herald) reads as no bucket,
-- and the SET below replaces it.
local raw = redis.pcall('GET', KEYS[1])
local tokens = nil
local ts = nil
if type(raw) == 'string' then
  local space = string.find(raw, ' ', 1, true)
  if space then
    tokens = tonumber(string.sub(raw, 1, space - 1))
    ts = tonumber(string.sub(raw, space + 1))
  end
end
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end

tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate / 1000000 + refund)

local allowed = 0
local retry_us = 0
local granted = 0
local reserved = 0
local held = nil
if reservation then
  held = redis.call('GET', reservation)
end
local late_us = tonumber(ARGV[9] or '-1') * 1000
local lapsed = false
if held then
  local turn = tonumber(held) or 0
  local lapsed_before = turn < 0
  if lapsed_before then turn = -turn end
  if turn > now then
    retry_us = turn - now
    reserved = 1
  elseif turn == 0 or lapsed_before or late_us < 0 or now - turn <= late_us then
    redis.call('DEL', reservation)
    allowed = 1
  else
    redis.call('DEL', reservation)
    held = nil
    lapsed = true
  end
end
if held then
  -- Answered above.
elseif tokens >= cost and peek then
  allowed = 1
elseif tokens >= cost then
  tokens = tokens - cost
  allowed = 1
  if want > 0 then
    granted = math.min(want, math.floor(tokens / share))
    tokens = tokens - granted
  end
else
  retry_us = math.ceil((cost - tokens) * 1000000 / rate)
  if reservation then
    tokens = tokens - cost
    reserved = 1
    redis.call('SET', reservation, string.format('%d', lapsed and -(now + retry_us) or now + retry_us), 'PX',
      math.ceil(retry_us / 1000) + tonumber(ARGV[7]))
  end
end

local full_us = math.ceil((capacity - tokens) * 1000000 / rate)
-- A full bucket is the same as no bucket: let idle keys expire.
redis.call('SET', KEYS[1], string.format('%.6f %d', tokens, now), 'PX', math.ceil(full_us / 1000) + 1000)

return { allowed, math.floor(tokens), math.ceil(retry_us / 1000), math.ceil(full_us / 1000), granted, reserved }
