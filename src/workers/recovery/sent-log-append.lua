-- Appends the sent records of one event-loop turn (sent-log.ts, append) in one call: per record,
-- the relay's answer first when a relay took it (kept for a run after a crash), then the stream
-- entry; then the turn's counts of sent messages, per minute (recent-counts.ts).
-- KEYS[1]: the sent log (a stream); KEYS[2 .. 1 + c]: the minutes' count hashes; then the relay
-- answer keys.
-- ARGV[1]: c; ARGV[2]: r, the records; ARGV[3]: how long an answer is kept (ms); then per record
-- three values: its answer key's index in KEYS (0: none), the answer (JSON), the entry (JSON);
-- then per count hash two: the count, and the expiry to set (ms since the epoch; 0: none).
local c = tonumber(ARGV[1])
local r = tonumber(ARGV[2])
local keep = ARGV[3]
local i = 4
for _ = 1, r do
  local answer = tonumber(ARGV[i])
  if answer > 0 then
    redis.call('SET', KEYS[answer], ARGV[i + 1], 'PX', keep)
  end
  redis.call('XADD', KEYS[1], '*', 'r', ARGV[i + 2])
  i = i + 3
end
for k = 1, c do
  redis.call('HINCRBY', KEYS[1 + k], 'sent', ARGV[i])
  if ARGV[i + 1] ~= '0' then
    redis.call('PEXPIREAT', KEYS[1 + k], ARGV[i + 1])
  end
  i = i + 2
end
return r
