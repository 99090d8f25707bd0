/**
 * The audit trail's append on Redis, one script per batch (docs/adr/0510-an-audit-batch-is-one-stream-entry.md).
 *
 * Each tenant's records of the batch become ONE stream entry, fields `n` (how many) and `b` (their
 * JSON array, oldest first). A record's id is derived from the entry's: the entry takes the id of
 * its last record and the records the seqs before it in the same millisecond, so a batch of 3 at
 * ms T gets `T-0`, `T-1`, `T-2` and the entry `T-2` — the ids one XADD per record gave. When the
 * stream already holds an id of that millisecond (or a later one: a clock that went back), the
 * records follow the stream's last entry instead. Entries written before this change hold one record
 * each in field `r` and keep their id.
 *
 * Bounds (docs/adr/0511-the-audit-bound-counts-records.md): a counter beside the stream holds how
 * many records it keeps; once the oldest entry is past the TTL's edge or the count is more than a
 * step (1 %) over the bound, whole entries are dropped from the oldest end until neither holds,
 * never the entry just added. Both keys expire a TTL after the last record.
 *
 * KEYS: per tenant, its stream then its counter. ARGV: the TTL's edge (ms), the bound, the TTL
 * (ms), then per tenant its record count and its records' JSON array.
 */
export const AUDIT_APPEND_SCRIPT = `
local edge = tonumber(ARGV[1])
local bound = tonumber(ARGV[2])
local step = math.max(1, math.floor(bound / 100))
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local function parts(id)
  local dash = string.find(id, '-', 1, true)
  return tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
end

local function recordsIn(fields)
  if fields[1] == 'n' then return tonumber(fields[2]) end
  return 1
end

local function append(stream, count, records)
  -- The first record's id must come after every id of the stream: now-0, or after the last entry
  -- when one has an id at or after it (this millisecond, or a clock that went back).
  local id = string.format('%d-%d', now, count - 1)
  local top = redis.call('XREVRANGE', stream, '+', string.format('%d-0', now), 'COUNT', 1)
  if #top > 0 then
    local ms, seq = parts(top[1][1])
    id = string.format('%d-%d', ms, seq + count)
  end
  local added = redis.pcall('XADD', stream, id, 'n', count, 'b', records)
  if type(added) ~= 'table' then return added end
  -- An id above the last entry's was used (that entry deleted): follow the stream's last id.
  local info = redis.call('XINFO', 'STREAM', stream)
  local last
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then last = info[i + 1] end
  end
  local ms, seq = parts(last)
  if ms < now then ms, seq = now, -1 end
  return redis.call('XADD', stream, string.format('%d-%d', ms, seq + count), 'n', count, 'b', records)
end

local function trim(stream, held, total, newest, count)
  local removed, last, done, alone = 0, nil, false, false
  while not done do
    local oldest = redis.call('XRANGE', stream, last and ('(' .. last) or '-', '+', 'COUNT', 64)
    done = #oldest < 64
    for _, entry in ipairs(oldest) do
      alone = entry[1] == newest
      if alone or (parts(entry[1]) >= edge and total - removed <= bound) then
        done = true
        break
      end
      removed = removed + recordsIn(entry[2])
      last = entry[1]
    end
  end
  if last then
    local ms, seq = parts(last)
    redis.call('XTRIM', stream, 'MINID', string.format('%d-%d', ms, seq + 1))
    -- Only the new entry left: its count is the stream's, whatever the counter had drifted to.
    if alone then redis.call('SET', held, count) else redis.call('DECRBY', held, removed) end
  end
end

for i = 1, #KEYS, 2 do
  local stream, held = KEYS[i], KEYS[i + 1]
  local count, records = tonumber(ARGV[3 + i]), ARGV[4 + i]
  -- A stream without its counter was written one record per entry: each entry is one record.
  -- An empty stream starts its count again, whatever was left of an old counter.
  local length = redis.call('XLEN', stream)
  if length == 0 or redis.call('EXISTS', held) == 0 then redis.call('SET', held, length) end
  local newest = append(stream, count, records)
  local total = redis.call('INCRBY', held, count)
  local expired = #redis.call('XRANGE', stream, '-', string.format('(%d-0', edge), 'COUNT', 1) > 0
  if expired or total > bound + step then trim(stream, held, total, newest, count) end
  redis.call('PEXPIRE', stream, ARGV[3])
  redis.call('PEXPIRE', held, ARGV[3])
end
return #KEYS / 2
`
