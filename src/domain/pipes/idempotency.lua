-- Idempotency-Key claim for one pipe message, atomic across every web process.
-- KEYS[1]  the key's record (hash: body, msg, at, nonce, state)
-- ARGV[1]  SHA-256 of the raw request body
-- ARGV[2]  msg_id this request would use
-- ARGV[3]  accepted_at this request would use (ms)
-- ARGV[4]  nonce this request would echo
-- ARGV[5]  lease of a claim whose message is not stored yet (ms)
-- ARGV[6]  key prefix of BullMQ job hashes ("<prefix>:pipe-messages:"), to tell whether a
--          claimed message was stored after all (its holder died before confirming)
-- ARGV[7]  idempotency window (ms), counted from acceptance
-- Returns { outcome, msg_id, accepted_at, nonce } where outcome is
--   'claimed'     no record: this request owns the key and must enqueue, then confirm
--   'duplicate'   the same body was accepted before: answer its msg_id, enqueue nothing
--   'conflict'    the key was used with another body
--   'in_progress' the same body is being accepted right now by another request
local rec = redis.call('HMGET', KEYS[1], 'body', 'msg', 'at', 'nonce', 'state')
if rec[1] == false then
  redis.call('HSET', KEYS[1], 'body', ARGV[1], 'msg', ARGV[2], 'at', ARGV[3], 'nonce', ARGV[4],
    'state', 'pending', 'window', ARGV[7])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]))
  return { 'claimed', ARGV[2], ARGV[3], ARGV[4] }
end
if rec[1] ~= ARGV[1] then
  return { 'conflict', rec[2], rec[3], rec[4] }
end
if rec[5] == 'accepted' then
  return { 'duplicate', rec[2], rec[3], rec[4] }
end
-- Pending: the claim's holder may have stored the job and died before confirming.
if redis.call('EXISTS', ARGV[6] .. rec[2]) == 1 then
  redis.call('HSET', KEYS[1], 'state', 'accepted')
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[7]))
  return { 'duplicate', rec[2], rec[3], rec[4] }
end
return { 'in_progress', rec[2], rec[3], rec[4] }
