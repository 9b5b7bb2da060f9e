-- A digest's take (workers/delivery/grouping.ts): closes its window if it is still the group's
-- open one (later messages open the next), and answers the window's items, oldest first. The
-- items stay until the digest is sent, so a re-run after a crash reads the same list.
-- KEYS[1]: the group's key base (see group-fold.lua); ARGV[1]: the window number; ARGV[2]: state ttl ms
local base = KEYS[1]
local openKey = base .. ':open'
if redis.call('HGET', openKey, 'n') == ARGV[1] then
  redis.call('SET', base .. ':held', redis.call('HGET', openKey, 'held') or '0', 'PX', ARGV[2])
  redis.call('DEL', openKey)
end
local ids = redis.call('ZRANGE', base .. ':w:' .. ARGV[1], 0, -1)
if #ids == 0 then return {} end
return redis.call('HMGET', base .. ':wi:' .. ARGV[1], unpack(ids))
