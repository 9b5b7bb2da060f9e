-- Notes that a relay is about to be asked for a message (sent-log.ts, noteAsking), only while
-- the job's lock is still this run's: a run whose lock lapsed (its job taken over) must not ask.
-- KEYS[1]: the job's lock; KEYS[2]: the message's answer key (one slot: the job's partition).
-- ARGV[1]: the run's lock token; ARGV[2]: the note (JSON); ARGV[3]: how long it is kept (ms).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
