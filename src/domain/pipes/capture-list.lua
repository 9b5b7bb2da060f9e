-- A pipe's captured payloads, newest first (domain/pipes/captures.ts): id, metadata and body
-- (nil when not kept) of each, flat. Ids whose hash has expired are skipped.
-- KEYS[1]: the pipe's list of capture ids. ARGV[1]: the prefix of capture hashes; ARGV[2]: most
-- captures to answer.
local ids = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
local out = {}
for _, id in ipairs(ids) do
  local fields = redis.call('HMGET', ARGV[1] .. id, 'meta', 'body')
  if fields[1] then
    out[#out + 1] = id
    out[#out + 1] = fields[1]
    out[#out + 1] = fields[2]
  end
end
return out
