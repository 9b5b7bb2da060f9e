-- Replaces the data of finished pipe jobs with a copy that has no input.
-- KEYS[i]: a job's hash; ARGV[i]: its data without the input (JSON).
-- Only a hash that is still there and finished is touched: writing to one that retention
-- removed meanwhile would make a stray hash holding only `data`.
local dropped = 0
for i, key in ipairs(KEYS) do
  if redis.call('HEXISTS', key, 'finishedOn') == 1 then
    redis.call('HSET', key, 'data', ARGV[i])
    dropped = dropped + 1
  end
end
return dropped
