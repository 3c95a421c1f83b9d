/**
 * Records one health event in the shared hash and announces it, atomically, so a process that
 * loads the hash after seeing no message still finds the event.
 *
 * KEYS[1] the health hash.
 * ARGV[1] channel, ARGV[2] message, ARGV[3] mode: `keep` stores ARGV[5] in field ARGV[4] unless
 * the field already holds a later `until` (a wait only ever extends, as in target-health.ts), and
 * keeps the hash at least until ARGV[6] (epoch ms, the event's `until` plus slack); `drop` deletes
 * the fields ARGV[4..] (the health they recorded is over).
 */
export const RECORD_HEALTH_EVENT_SCRIPT = `
local hash = KEYS[1]
if ARGV[3] == 'keep' then
  local field = ARGV[4]
  local stored = redis.call('HGET', hash, field)
  local incoming = cjson.decode(ARGV[5])
  if not stored or tonumber(cjson.decode(stored)['until']) < tonumber(incoming['until']) then
    redis.call('HSET', hash, field, ARGV[5])
  end
  local expireAt = tonumber(ARGV[6])
  if redis.call('PTTL', hash) < 0 then
    redis.call('PEXPIREAT', hash, expireAt)
  else
    redis.call('PEXPIREAT', hash, expireAt, 'GT')
  end
else
  for index = 4, #ARGV do
    redis.call('HDEL', hash, ARGV[index])
  end
end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`;

/**
 * An operator's reset: drops the health hash and every pin, then tells the other processes, in
 * one step, so that no lookup sent after it finds a pin from before. Scanning the keyspace blocks
 * Redis for a moment; a reset is rare.
 *
 * KEYS[1] the health hash. ARGV[1] the pins' MATCH pattern, ARGV[2] channel, ARGV[3] message.
 */
export const FORGET_ROUTING_STATE_SCRIPT = `
redis.call('DEL', KEYS[1])
local cursor = '0'
repeat
  local reply = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 1000)
  cursor = reply[1]
  for _, key in ipairs(reply[2]) do
    redis.call('UNLINK', key)
  end
until cursor == '0'
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`;
