-- Settles a claim made by idempotency.lua, if it is still this request's.
-- KEYS[1]  the key's record
-- ARGV[1]  msg_id of the claim
-- ARGV[2]  'accept': the message is stored; keep the record for the window
--          'release': the message was not stored; forget the claim so a retry can try again,
--          unless its job exists after all (a write given up on was applied): accept it then
-- ARGV[3]  for 'release': the key of the claim's job
-- Returns 1 when settled, 0 when the record is no longer this claim's.
if redis.call('HGET', KEYS[1], 'msg') ~= ARGV[1] then
  return 0
end
if ARGV[2] == 'accept' or (ARGV[3] and redis.call('EXISTS', ARGV[3]) == 1) then
  redis.call('HSET', KEYS[1], 'state', 'accepted')
  redis.call('PEXPIRE', KEYS[1], tonumber(redis.call('HGET', KEYS[1], 'window')))
  return 1
end
if redis.call('HGET', KEYS[1], 'state') == 'pending' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
