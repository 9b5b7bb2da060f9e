-- Keeps captured payloads of one pipe (domain/pipes/captures.ts) in one step, oldest first:
-- each id goes to the head of the pipe's list and its hash is written with its own expiry;
-- ids past the newest ARGV[2] are dropped with their hashes, so a pipe never holds more.
-- KEYS[1]: the pipe's list of capture ids.
-- ARGV[1]: time to live, in ms; ARGV[2]: most captures a pipe keeps; ARGV[3]: the prefix of
-- capture hashes (prefix .. id is a capture's key); then, per capture, three values: its id, its
-- metadata (JSON) and its body ('' when not kept: the metadata says too_large).
local ttl = ARGV[1]
local max = tonumber(ARGV[2])
local n = 0
for i = 4, #ARGV, 3 do
  -- The push comes first: if it fails (the key holds another type), nothing is written.
  n = redis.call('LPUSH', KEYS[1], ARGV[i])
  local key = ARGV[3] .. ARGV[i]
  redis.call('HSET', key, 'meta', ARGV[i + 1], 'body', ARGV[i + 2])
  redis.call('PEXPIRE', key, ttl)
end
while n > max do
  redis.call('DEL', ARGV[3] .. redis.call('RPOP', KEYS[1]))
  n = n - 1
end
redis.call('PEXPIRE', KEYS[1], ttl)
return n
