import type { McpSessionRecord, McpSessionStore } from '../mcp-session-store.js'

type Entry = { record: McpSessionRecord; expiresAt: number }

/** MCP sessions in a Map; an expired one is dropped when met, so no sweeper is needed. */
export function createMemoryMcpSessionStore(): McpSessionStore {
  const entries = new Map<string, Entry>()

  function live(now: number): Entry[] {
    for (const [id, entry] of entries) if (entry.expiresAt <= now) entries.delete(id)
    return [...entries.values()]
  }

  return {
    async create(record, idleTtlMs, now) {
      entries.set(record.mcpSessionId, { record, expiresAt: now + idleTtlMs })
    },
    async touch(tenant, mcpSessionId, idleTtlMs, now) {
      const entry = entries.get(mcpSessionId)
      if (!entry || entry.record.tenant !== tenant) return undefined
      if (entry.expiresAt <= now) {
        entries.delete(mcpSessionId)
        return undefined
      }
      entry.expiresAt = now + idleTtlMs
      return entry.record
    },
    async delete(tenant, mcpSessionId) {
      const entry = entries.get(mcpSessionId)
      if (!entry || entry.record.tenant !== tenant) return undefined
      entries.delete(mcpSessionId)
      return entry.record
    },
    async count(tenant, now) {
      const all = live(now)
      return { tenant: all.filter((entry) => entry.record.tenant === tenant).length, total: all.length }
    },
  }
}
