-- Keeps one captured payload of a pipe (domain/pipes/captures.ts) in one step: its id at the
-- head of the pipe's list and its hash, with its own expiry; ids past the newest ARGV[3] are
-- dropped with their hashes, so a pipe never holds more than that many.
-- KEYS[1]: the pipe's list of capture ids; KEYS[2]: this capture's hash.
-- ARGV[1]: the capture id; ARGV[2]: time to live, in ms; ARGV[3]: most captures a pipe keeps;
-- ARGV[4]: the prefix of capture hashes (prefix .. id is a capture's key); ARGV[5]: the
-- metadata (JSON); ARGV[6], when given: the body.
-- The push comes first: if it fails (the key holds another type), nothing is written.
local n = redis.call('LPUSH', KEYS[1], ARGV[1])
if ARGV[6] then
  redis.call('HSET', KEYS[2], 'meta', ARGV[5], 'body', ARGV[6])
else
  redis.call('HSET', KEYS[2], 'meta', ARGV[5])
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
local max = tonumber(ARGV[3])
while n > max do
  redis.call('DEL', ARGV[4] .. redis.call('RPOP', KEYS[1]))
  n = n - 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n
