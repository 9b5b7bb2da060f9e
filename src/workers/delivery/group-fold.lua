-- Folds one message into its group's open window (workers/delivery/grouping.ts), once: a re-run
-- of the same message (its worker died) reads the decision it made the first time.
-- KEYS[1]: the group's key base (redis/keys.ts groupBaseKey; the window keys below are built on
--          it: ':open' hash {n, at, held}, ':seq' window counter, ':w:<n>' sorted set of msg_ids
--          by acceptance, ':wi:<n>' hash msg_id -> item, ':held' the last closed window's count)
-- KEYS[2]: this message's decision (groupDecisionKey)
-- ARGV: msg_id, score (accepted_at), item (JSON), window ms, mode (digest|throttle), limit
--       (throttle), most items per window, decision and items ttl ms, state ttl ms, most item
--       bytes per window
-- Answers "<f|p>|<window n>|<opened at ms>|<held back in the previous window>": f folded into
-- window n's digest, p passed (a throttle's message under its limit, sent on its own).
local decided = redis.call('GET', KEYS[2])
if decided then return decided end
local base = KEYS[1]
local openKey = base .. ':open'
local windowMs = tonumber(ARGV[4])
local mode = ARGV[5]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local open = redis.call('HMGET', openKey, 'n', 'at')
local n = tonumber(open[1])
local at = tonumber(open[2])
if n then
  -- A throttle's window is over at its end (its closing digest, if any, still takes its items);
  -- a full window is closed for a new one, so that one digest never renders too many items.
  local full = redis.call('ZCARD', base .. ':w:' .. n) >= tonumber(ARGV[7])
    or tonumber(redis.call('HGET', openKey, 'bytes') or '0') >= tonumber(ARGV[10])
  if full or (mode == 'throttle' and now >= at + windowMs) then
    redis.call('SET', base .. ':held', redis.call('HGET', openKey, 'held') or '0', 'PX', ARGV[9])
    n = nil
  end
end
if not n then
  n = redis.call('INCR', base .. ':seq')
  at = now
  redis.call('DEL', openKey)
  redis.call('HSET', openKey, 'n', n, 'at', at, 'passed', 0, 'held', 0, 'bytes', 0)
end
redis.call('PEXPIRE', openKey, ARGV[9])
redis.call('PEXPIRE', base .. ':seq', ARGV[9])
local held = redis.call('GET', base .. ':held') or '0'
local kind = 'f'
if mode == 'throttle' and tonumber(redis.call('HGET', openKey, 'passed')) < tonumber(ARGV[6]) then
  redis.call('HINCRBY', openKey, 'passed', 1)
  kind = 'p'
else
  local items = base .. ':w:' .. n
  local bodies = base .. ':wi:' .. n
  redis.call('ZADD', items, ARGV[2], ARGV[1])
  redis.call('HSET', bodies, ARGV[1], ARGV[3])
  redis.call('HINCRBY', openKey, 'held', 1)
  redis.call('HINCRBY', openKey, 'bytes', string.len(ARGV[3]))
  -- Kept until the digest is sent (it deletes them), at most as long as a dead digest stays
  -- replayable.
  redis.call('PEXPIRE', items, ARGV[8])
  redis.call('PEXPIRE', bodies, ARGV[8])
end
local result = kind .. '|' .. n .. '|' .. at .. '|' .. held
redis.call('SET', KEYS[2], result, 'PX', ARGV[8])
return result
