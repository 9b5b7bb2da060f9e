-- Keeps captured payloads of one pipe (domain/pipes/captures.ts) in one step, oldest first:
-- each id goes to the head of the pipe's list and its capture is written with its own expiry;
-- ids past the newest ARGV[2] are dropped with their captures, so a pipe never holds more.
-- A capture is one string, its metadata and its body split at the first newline (JSON text has
-- none), so that SET ... PX writes it and its expiry in one command (a hash took two: HSET,
-- PEXPIRE); capture-list.lua still reads the hashes of captures kept before.
-- KEYS[1]: the pipe's list of capture ids.
-- ARGV[1]: time to live, in ms; ARGV[2]: most captures a pipe keeps; ARGV[3]: the prefix of
-- capture keys (prefix .. id is a capture's key); then, per capture, three values: its id, its
-- metadata (JSON) and its body ('' when not kept: the metadata says too_large).
local ttl = ARGV[1]
local max = tonumber(ARGV[2])
local n = 0
for i = 4, #ARGV, 3 do
  -- The push comes first: if it fails (the key holds another type), nothing is written.
  n = redis.call('LPUSH', KEYS[1], ARGV[i])
  redis.call('SET', ARGV[3] .. ARGV[i], ARGV[i + 1] .. '\n' .. ARGV[i + 2], 'PX', ttl)
end
if n > max then
  -- The ids pushed out, in one pop, and their captures in one DEL.
  local gone = redis.call('RPOP', KEYS[1], n - max)
  for j = 1, #gone do
    gone[j] = ARGV[3] .. gone[j]
  end
  redis.call('DEL', unpack(gone))
  n = max
end
redis.call('PEXPIRE', KEYS[1], ttl)
return n
