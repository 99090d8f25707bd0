import type { CallJournal, CallJournalState } from '../call-journal.js'

const keyOf = (sessionId: string, toolUseId: string) => `${sessionId}\u0000${toolUseId}`

/**
 * One process's journal: entries in a Map, bounded by dropping the oldest (a call redelivered to
 * this instance after that many newer calls is already answered in the session's history).
 */
export function createMemoryCallJournal(maxEntries = 100_000): CallJournal {
  const entries = new Map<string, CallJournalState>()
  const put = (key: string, state: CallJournalState) => {
    entries.delete(key)
    entries.set(key, state)
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string)
  }
  return {
    async claim(sessionId, toolUseId, owner) {
      const key = keyOf(sessionId, toolUseId)
      const existing = entries.get(key)
      if (existing === undefined || (existing.state === 'queued' && existing.owner !== owner)) {
        put(key, { state: 'queued', owner })
        return null
      }
      return existing
    },
    async started(sessionId, toolUseId, owner) {
      const key = keyOf(sessionId, toolUseId)
      const existing = entries.get(key)
      if (existing?.state === 'answered' || (existing !== undefined && existing.owner !== owner)) return false
      put(key, { state: 'started', owner })
      return true
    },
    async answered(sessionId, toolUseId) {
      put(keyOf(sessionId, toolUseId), { state: 'answered' })
    },
  }
}
