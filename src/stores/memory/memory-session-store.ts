import type { SessionRecord, SessionStore } from '../session-store.js'

const keyOf = (tenant: string, sessionId: string) => `${tenant}\u0000${sessionId}`

/** Sessions in a Map. Records are handed out by reference: `readFileState` is a live cache. */
export function createMemorySessionStore(): SessionStore {
  const sessions = new Map<string, SessionRecord>()
  const perTenant = new Map<string, number>()
  const counted = (tenant: string, change: number) => {
    const next = (perTenant.get(tenant) ?? 0) + change
    if (next <= 0) perTenant.delete(tenant)
    else perTenant.set(tenant, next)
  }

  return {
    async create(record) {
      const key = keyOf(record.tenant, record.sessionId)
      if (!sessions.has(key)) counted(record.tenant, 1)
      sessions.set(key, record)
    },
    async get(tenant, sessionId) {
      return sessions.get(keyOf(tenant, sessionId))
    },
    async delete(tenant, sessionId) {
      const deleted = sessions.delete(keyOf(tenant, sessionId))
      if (deleted) counted(tenant, -1)
      return deleted
    },
    async count(tenant) {
      return { tenant: perTenant.get(tenant) ?? 0, total: sessions.size }
    },
    async claim(tenant, sessionId, runId, now) {
      const record = sessions.get(keyOf(tenant, sessionId))
      if (!record) return 'missing'
      if (record.activeRunId !== undefined && record.activeRunId !== runId) return 'busy'
      record.activeRunId = runId
      record.lastUsedAt = now
      return 'claimed'
    },
    async release(tenant, sessionId, runId, state, now) {
      const record = sessions.get(keyOf(tenant, sessionId))
      if (!record || record.activeRunId !== runId) return
      if (state) Object.assign(record, state)
      record.activeRunId = undefined
      record.lastUsedAt = now
    },
    async sweep(now, idleTtlMs) {
      let removed = 0
      for (const [key, record] of sessions) {
        if (record.activeRunId === undefined && now - record.lastUsedAt > idleTtlMs) {
          sessions.delete(key)
          counted(record.tenant, -1)
          removed++
        }
      }
      return removed
    },
  }
}
