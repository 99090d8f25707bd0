/** The Lua scripts of the Redis run store (redis-run-store.ts), and the commands ioredis makes of them. */

/**
 * Completes a run in one step: status, final results and blobs, expiry of its keys, its stream
 * and its idempotency key; then the oldest finished runs beyond the bound go, with their streams.
 * The results list is rewritten only when ARGV[9] is '': otherwise it already holds the final
 * results, ARGV[9] of them, and a list of any other length refuses the step (-1) before it writes
 * anything, so the caller sends them (docs/adr/0444-a-runs-results-are-stored-once.md).
 * KEYS: run, ids, results, blobs, events, idempotency ('' when none), finished set.
 * ARGV: status, finishedAt, expiresAt, maxRetainedRuns, runId, results JSON, blobs JSON,
 * cancel reason, count of results already stored ('' when sent).
 */
export const COMPLETE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[9] ~= '' and redis.call('LLEN', KEYS[3]) ~= tonumber(ARGV[9]) then return -1 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finishedAt', ARGV[2], 'expiresAt', ARGV[3])
redis.call('HDEL', KEYS[1], 'openAsks', 'resume')
if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], 'cancelReason', ARGV[8]) end
if ARGV[9] == '' then
  redis.call('DEL', KEYS[3])
  local results = cjson.decode(ARGV[6])
  for i = 1, #results, 1000 do redis.call('RPUSH', KEYS[3], unpack(results, i, math.min(i + 999, #results))) end
end
redis.call('DEL', KEYS[4])
if ARGV[7] ~= '[]' then
  local blobs = cjson.decode(ARGV[7])
  for i = 1, #blobs, 1000 do redis.call('RPUSH', KEYS[4], unpack(blobs, i, math.min(i + 999, #blobs))) end
end
for i = 1, 5 do redis.call('PEXPIREAT', KEYS[i], ARGV[3]) end
if KEYS[6] ~= '' then redis.call('PEXPIREAT', KEYS[6], ARGV[3]) end
redis.call('ZADD', KEYS[7], ARGV[3], ARGV[5])
local excess = redis.call('ZCARD', KEYS[7]) - tonumber(ARGV[4])
if excess > 0 then
  for _, old in ipairs(redis.call('ZPOPMIN', KEYS[7], excess)) do
    if _ % 2 == 1 then
      local base = KEYS[1]:sub(1, #KEYS[1] - #ARGV[5]) .. old
      redis.call('DEL', base, base .. ':ids', base .. ':results', base .. ':blobs', KEYS[5]:sub(1, #KEYS[5] - #ARGV[5]) .. old)
    end
  end
end
return 1
`

/**
 * A new run: its hash, its place in the tenant's index (trimmed to the retained runs and a
 * margin), its tool_use ids and any results it starts with. Every value is an argument of its
 * own, nothing to decode (docs/adr/0536-a-new-run-is-sent-as-plain-arguments.md).
 * KEYS: run, tenant's runs, ids, results. ARGV: createdAt score, runId, trim rank, the count of
 * ids, the count of results, then the ids, the results (each a JSON string, kept byte for byte)
 * and the hash's field/value pairs.
 */
export const CREATE_SCRIPT = `
local ids, results = tonumber(ARGV[4]), tonumber(ARGV[5])
local fields = 6 + ids + results
-- In slices: unpack is bounded by Lua's stack (a pool may hold many tools, a run many blocks).
for i = fields, #ARGV, 1000 do redis.call('HSET', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV))) end
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, tonumber(ARGV[3]))
for i = 6, 5 + ids, 1000 do redis.call('RPUSH', KEYS[3], unpack(ARGV, i, math.min(i + 999, 5 + ids))) end
for i = 6 + ids, 5 + ids + results, 1000 do redis.call('RPUSH', KEYS[4], unpack(ARGV, i, math.min(i + 999, 5 + ids + results))) end
return 1
`

/** A field written only while the run's hash exists (a run completed meanwhile is left as it is). */
export const SET_IF_EXISTS_SCRIPT = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end`

export type CreateCommand = { toolexecCreateRun(...args: (string | readonly string[])[]): Promise<number> }

export type CompleteCommand = { toolexecComplete(...args: string[]): Promise<number> }
