-- A pipe's captured payloads, newest first (domain/pipes/captures.ts): id, metadata and body
-- (nil when not kept) of each, flat. Ids whose capture has expired are skipped.
-- KEYS[1]: the pipe's list of capture ids. ARGV[1]: the prefix of capture keys; ARGV[2]: most
-- captures to answer.
-- A capture is a string, metadata and body split at the first newline (capture-keep.lua), or a
-- hash of `meta` and `body` (kept before; they expire within CAPTURE_TTL_S).
local ids = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
local out = {}
for _, id in ipairs(ids) do
  local key = ARGV[1] .. id
  local meta, body
  local value = redis.pcall('GET', key)
  if type(value) == 'string' then
    local newline = string.find(value, '\n', 1, true)
    if newline then
      meta = string.sub(value, 1, newline - 1)
      body = string.sub(value, newline + 1)
    end
  elseif type(value) == 'table' and value.err then
    local fields = redis.call('HMGET', key, 'meta', 'body')
    meta = fields[1]
    body = fields[2]
  end
  if meta then
    out[#out + 1] = id
    out[#out + 1] = meta
    out[#out + 1] = body
  end
end
return out
