import { readFileSync } from 'node:fs'

/** Descriptors kept free for the service's own work: sandbox spawns, blob files, Redis, MCP stdio servers. */
const RESERVED_MIN = 256
const RESERVED_SHARE = 0.25

/** The process's soft limit on open files (`ulimit -n`), from /proc; undefined where there is none. */
export function openFilesLimit(limits = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limits, 'utf8')
      .split('\n')
      .find((row) => row.startsWith('Max open files'))
    const soft = line?.split(/\s{2,}/)[1]
    const value = Number(soft)
    return Number.isSafeInteger(value) && value > 0 ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * The default total connection cap: the descriptor limit less a reserve (a quarter, at least
 * 256), so connections never take the descriptors the service needs to work
 * (docs/adr/0231-connection-caps.md). Without a known limit: `fallback`.
 */
export function defaultConnectionCap(limit: number | undefined, fallback: number): number {
  if (limit === undefined || limit === Number.POSITIVE_INFINITY) return fallback
  const reserve = Math.max(RESERVED_MIN, Math.ceil(limit * RESERVED_SHARE))
  return Math.max(1, Math.min(fallback, limit - reserve))
}
