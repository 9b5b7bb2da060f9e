-- Token bucket, one per key, refilled continuously from Redis server time so that every web and
-- worker process shares one clock and one budget.
-- KEYS[1]  bucket key (string "<tokens> <last refill, µs>[ <sendable>]", expiring once the bucket
--          is full again; see "Two counts" below)
-- KEYS[2]  reservation key, optional (a delivered message's, ratelimit/token-bucket.ts): a refused
--          request reserves: the bucket goes into debt by its cost, the key records the payment and
--          its turn (Redis time, µs: when the debt is repaid) for ARGV[7] ms beyond the wait, and the
--          wait is until that turn. A request that finds the key has paid: from its turn on it
--          passes without paying again (the key is deleted); before its turn it is told to wait the
--          rest, and keeps the key. Why: refused messages that only retried later woke together, were
--          refused again and again, and each try cost a render and a store write; a reservation
--          makes a backlog wait in line, once each.
-- Two counts. `tokens` orders the line: it is charged when a request takes or reserves. `sendable`
--          guards the send itself: it refills the same way and is charged when a request is let
--          through, whether it pays now or claims a reservation. A claim passes
--          only while `sendable` holds its cost; else it takes a place in line on `sendable`: it is
--          charged into debt there, and its key records a new turn, "c<turn>", at which it passes
--          without being charged again (claimed more than 100 ms late, it is a late claim again).
--          So claims that all come back late together (workers or
--          Redis stalled past their turns) leave one by one at capacity + rate x t, in the order
--          they came back, each told its own wait (long ones put their job off), and a late claim
--          never pays twice. New requests queue behind that debt too (`tokens` is never more than
--          `sendable`). On time, `sendable` never stops a claim: it is charged later than
--          `tokens` for the same requests.
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
-- Returns { allowed (1/0), remaining tokens (floor), retry after (ms, 0 when allowed),
--           time until full again (ms), lease granted (tokens), reserved (1/0),
--           time until `sendable` is full again (ms): how long a payment taken now stays as
--           good as one taken later (rememberPayment) }
-- A string with SET ... PX takes one command where a hash took two (HSET, PEXPIRE): this script
-- runs for every accepted pipe message, delivered message and bot call.
-- A place in line on `sendable` ("c<turn>") claimed later than this after its turn (stalled
-- again) was repaid to a bucket that may have filled meanwhile: it claims again as a late claim.
local CHARGED_TURN_SLACK_US = 100000
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
local sendable = nil
if type(raw) == 'string' then
  local a, b, c = string.match(raw, '^(%S+) (%S+) ?(%S*)$')
  tokens = tonumber(a)
  ts = tonumber(b)
  -- Written only while it differs from `tokens`.
  sendable = tonumber(c) or tokens
end
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
  sendable = capacity
end

local refill = math.max(0, now - ts) * rate / 1000000 + refund
sendable = math.min(capacity, sendable + refill)
-- After a stall `tokens` refilled while claims queued on `sendable`: new turns come after them.
tokens = math.min(capacity, tokens + refill, sendable)

local allowed = 0
local retry_us = 0
local granted = 0
local reserved = 0
local held = nil
if reservation then
  held = redis.call('GET', reservation)
end
-- How long until `sendable` holds this request's cost (0 when it does).
local function send_wait_us()
  if sendable >= cost then return 0 end
  return math.ceil((cost - sendable) * 1000000 / rate)
end
if held then
  -- "c<turn>": a late claim's place in line on `sendable`, charged already. A turn written
  -- negated by an older Herald (a lapsed reservation's) is a turn all the same.
  local charged = string.sub(held, 1, 1) == 'c'
  local turn = math.abs(tonumber(charged and string.sub(held, 2) or held) or 0)
  if turn > now then
    retry_us = turn - now
    reserved = 1
  elseif turn == 0 or (charged and now - turn <= CHARGED_TURN_SLACK_US) then
    -- A kept payment (rememberPayment) charged both counts when it was made, and is kept only
    -- while it is as good as one made now; a place in line on `sendable` passes at its turn.
    redis.call('DEL', reservation)
    allowed = 1
  elseif sendable >= cost then
    redis.call('DEL', reservation)
    sendable = sendable - cost
    allowed = 1
  else
    retry_us = send_wait_us()
    sendable = sendable - cost
    reserved = 1
    redis.call('SET', reservation, string.format('c%d', now + retry_us), 'PX',
      math.ceil(retry_us / 1000) + tonumber(ARGV[7]))
  end
elseif tokens >= cost and sendable >= cost and peek then
  allowed = 1
elseif tokens >= cost and sendable >= cost then
  tokens = tokens - cost
  sendable = sendable - cost
  allowed = 1
  if want > 0 then
    granted = math.min(want, math.floor(math.min(tokens, sendable) / share))
    tokens = tokens - granted
    sendable = sendable - granted
  end
else
  retry_us = math.max(math.ceil((cost - tokens) * 1000000 / rate), send_wait_us())
  if reservation then
    tokens = tokens - cost
    reserved = 1
    redis.call('SET', reservation, string.format('%d', now + retry_us), 'PX',
      math.ceil(retry_us / 1000) + tonumber(ARGV[7]))
  end
end

tokens = math.min(tokens, sendable)
local full_us = math.ceil((capacity - tokens) * 1000000 / rate)
local state = string.format('%.6f %d', tokens, now)
if math.abs(sendable - tokens) > 0.000001 then state = state .. string.format(' %.6f', sendable) end
-- A full bucket is the same as no bucket: let idle keys expire.
redis.call('SET', KEYS[1], state, 'PX', math.ceil(full_us / 1000) + 1000)

local sendable_full_us = math.ceil((capacity - sendable) * 1000000 / rate)
return { allowed, math.floor(tokens), math.ceil(retry_us / 1000), math.ceil(full_us / 1000), granted, reserved,
  math.ceil(sendable_full_us / 1000) }
