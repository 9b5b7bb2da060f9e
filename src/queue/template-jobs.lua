-- How many unfinished pipe jobs (waiting, paused, prioritized, delayed, active) name a template,
-- counted where the jobs are, so that no job's input crosses the network. Reads at most ARGV[3]
-- jobs, so that a long backlog cannot hold Redis up for long.
-- KEYS: BullMQ's wait, paused, prioritized, delayed and active keys (lists or sorted sets).
-- ARGV[1]: the prefix of a job's hash key (the queue's key prefix and ':'); ARGV[2]: the text a
-- job's data holds when it names the template ('"template_id":"<id>"'); ARGV[3]: most jobs read.
-- Answers {matching jobs, 1 when there were more unfinished jobs than were read else 0}.
local prefix, needle, cap = ARGV[1], ARGV[2], tonumber(ARGV[3])
local count, read, total = 0, 0, 0
local function scan(ids)
  for _, id in ipairs(ids) do
    read = read + 1
    local data = redis.call('HGET', prefix .. id, 'data')
    if data and string.find(data, needle, 1, true) then
      count = count + 1
    end
  end
end
for _, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'list' then
    total = total + redis.call('LLEN', key)
    if read < cap then scan(redis.call('LRANGE', key, 0, cap - read - 1)) end
  elseif kind == 'zset' then
    total = total + redis.call('ZCARD', key)
    if read < cap then scan(redis.call('ZRANGE', key, 0, cap - read - 1)) end
  end
end
return { count, total > read and 1 or 0 }
