-- A pipe job's state and the fields that go with it, read in one step: a job that completes or
-- fails between a read of its fields and a read of its state would pair a terminal state with
-- fields from before it (no return value, no failedReason, an older attempt count).
-- KEYS: the job's hash, then BullMQ's completed, failed, delayed, prioritized, active, wait,
-- paused and waiting-children keys. ARGV[1]: the job id.
-- Answers nil when there is no such job, else {state, data, returnvalue, failedReason, atm,
-- stc, finishedOn}; the state is BullMQ's getState answer (its getStateV2 script, same order).
local id = ARGV[1]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return nil
end
local state = 'unknown'
if redis.call('ZSCORE', KEYS[2], id) then
  state = 'completed'
elseif redis.call('ZSCORE', KEYS[3], id) then
  state = 'failed'
elseif redis.call('ZSCORE', KEYS[4], id) then
  state = 'delayed'
elseif redis.call('ZSCORE', KEYS[5], id) then
  state = 'prioritized'
elseif redis.call('LPOS', KEYS[6], id) then
  state = 'active'
elseif redis.call('LPOS', KEYS[7], id) or redis.call('LPOS', KEYS[8], id) then
  state = 'waiting'
elseif redis.call('ZSCORE', KEYS[9], id) then
  state = 'waiting-children'
end
local f = redis.call('HMGET', KEYS[1], 'data', 'returnvalue', 'failedReason', 'atm', 'stc', 'finishedOn')
return { state, f[1], f[2], f[3], f[4], f[5], f[6] }
