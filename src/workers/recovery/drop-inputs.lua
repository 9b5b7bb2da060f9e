-- Replaces the data of finished pipe jobs with a copy that has no input, and deletes the relay
-- answer each kept for a run after a crash (sent-log.ts, relayAnswerKey): a finished job never
-- runs again.
-- KEYS[i] (i <= n): a job's hash; KEYS[n + i]: its relay answer key; ARGV[i]: its data without
-- the input (JSON). n = #ARGV.
-- Only a hash that is still there and finished is touched: writing to one that retention
-- removed meanwhile would make a stray hash holding only `data`.
local n = #ARGV
local dropped = 0
for i = 1, n do
  local key = KEYS[i]
  if redis.call('HEXISTS', key, 'finishedOn') == 1 then
    redis.call('HSET', key, 'data', ARGV[i])
    dropped = dropped + 1
  end
  redis.call('DEL', KEYS[n + i])
end
return dropped
