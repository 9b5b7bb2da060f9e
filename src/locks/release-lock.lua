-- Deletes the lock only if we still hold it (the value is our random owner id), so a holder
-- whose lock already expired cannot release the next holder's lock.
-- KEYS[1] lock key, ARGV[1] owner id. Returns 1 if released.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
