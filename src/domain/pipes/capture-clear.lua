-- Deletes every captured payload of a pipe and its list (domain/pipes/captures.ts); answers how
-- many ids the list held.
-- KEYS[1]: the pipe's list of capture ids. ARGV[1]: the prefix of capture keys.
local ids = redis.call('LRANGE', KEYS[1], 0, -1)
for _, id in ipairs(ids) do
  redis.call('DEL', ARGV[1] .. id)
end
redis.call('DEL', KEYS[1])
return #ids
