import type { Redis } from 'ioredis'
import { CALL_JOURNAL_TTL_MS, type CallJournal, type CallJournalState } from '../call-journal.js'
import { redisKeys } from './redis-keys.js'

/** Wins on no entry or on a call only queued by another owner; returns what stands otherwise. */
const CLAIM_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if not value then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  return false
end
local entry = cjson.decode(value)
if entry.state == 'queued' and entry.owner ~= ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  return false
end
return value
`

/** Only the owner's own claim moves to started; an answered call never moves back. */
const STARTED_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value then
  local entry = cjson.decode(value)
  if entry.state == 'answered' or entry.owner ~= ARGV[3] then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`

type JournalCommands = {
  toolexecJournalClaim(key: string, entry: string, owner: string, ttl: number): Promise<string | null>
  toolexecJournalStarted(key: string, entry: string, ttl: number, owner: string): Promise<number>
}

/** The journal on Redis: each change is one script, so two instances never both win a claim (ADR 0370). */
export function createRedisCallJournal(redis: Redis): CallJournal {
  redis.defineCommand('toolexecJournalClaim', { numberOfKeys: 1, lua: CLAIM_SCRIPT })
  redis.defineCommand('toolexecJournalStarted', { numberOfKeys: 1, lua: STARTED_SCRIPT })
  const commands = redis as unknown as JournalCommands
  return {
    async claim(sessionId, toolUseId, owner) {
      const entry = JSON.stringify({ state: 'queued', owner })
      const key = redisKeys.managedAgentsCall(sessionId, toolUseId)
      const previous = await commands.toolexecJournalClaim(key, entry, owner, CALL_JOURNAL_TTL_MS)
      return previous === null ? null : (JSON.parse(previous) as CallJournalState)
    },
    async started(sessionId, toolUseId, owner) {
      const key = redisKeys.managedAgentsCall(sessionId, toolUseId)
      const entry = JSON.stringify({ state: 'started', owner })
      return (await commands.toolexecJournalStarted(key, entry, CALL_JOURNAL_TTL_MS, owner)) === 1
    },
    async answered(sessionId, toolUseId) {
      const key = redisKeys.managedAgentsCall(sessionId, toolUseId)
      await redis.set(key, JSON.stringify({ state: 'answered' }), 'PX', CALL_JOURNAL_TTL_MS)
    },
  }
}
