import { createSerialQueue } from '../../async/serial-queue.js'
import type { PersistentShell } from './persistent-shell.js'

type Entry = { shell: Promise<PersistentShell>; lastUsedAt: number; tenant: string; sessionId: string }

export type ShellRegistryOptions = {
  /** Shells idle longer than this are ended by `sweep` (the session idle TTL). */
  idleTtlMs: number
  /** At most this many shells live at once; starting one more ends the least recently used. */
  maxShells: number
  now?: () => number
}

/**
 * The persistent shells of the `bash` client tool, one per session (docs/adr/0145-persistent-shell.md).
 * A shell is started on first use and ended when its session is deleted or expires (`sweep`),
 * when it is restarted, and at shutdown (`closeAll`).
 */
export function createShellRegistry(options: ShellRegistryOptions) {
  const now = options.now ?? Date.now
  const shells = new Map<string, Entry>()
  const queues = new Map<string, ReturnType<typeof createSerialQueue>>()
  const keyOf = (tenant: string, sessionId: string) => `${tenant}\u0000${sessionId}`

  async function end(key: string): Promise<void> {
    const entry = shells.get(key)
    if (!entry) return
    shells.delete(key)
    queues.delete(key)
    await (await entry.shell.catch(() => undefined))?.kill()
  }

  /** The session's shell, started with `start` when it has none (or its last one ended). */
  async function shellFor(
    tenant: string,
    sessionId: string,
    start: () => Promise<PersistentShell>,
  ): Promise<PersistentShell> {
    const key = keyOf(tenant, sessionId)
    const entry = shells.get(key)
    if (
      entry &&
      (await entry.shell.then(
        (shell) => shell.alive,
        () => false,
      ))
    ) {
      entry.lastUsedAt = now()
      return entry.shell
    }
    if (entry) await end(key)
    if (shells.size >= options.maxShells) {
      const oldest = [...shells.entries()].sort((a, b) => a[1].lastUsedAt - b[1].lastUsedAt)[0]
      if (oldest) await end(oldest[0])
    }
    const shell = start()
    shells.set(key, { shell, lastUsedAt: now(), tenant, sessionId })
    shell.catch(() => shells.delete(key))
    return shell
  }

  /** Calls on one session's shell run one at a time, whoever sends them. */
  function serialise<T>(tenant: string, sessionId: string, task: () => Promise<T>): Promise<T> {
    const key = keyOf(tenant, sessionId)
    let queue = queues.get(key)
    if (!queue) {
      queue = createSerialQueue()
      queues.set(key, queue)
    }
    return queue.run(task)
  }

  /** Ends shells idle past the TTL and those whose session `exists` no longer reports. */
  async function sweep(exists: (tenant: string, sessionId: string) => Promise<boolean>): Promise<number> {
    let ended = 0
    for (const [key, entry] of [...shells.entries()]) {
      const idle = now() - entry.lastUsedAt > options.idleTtlMs
      if (idle || !(await exists(entry.tenant, entry.sessionId))) {
        await end(key)
        ended += 1
      }
    }
    return ended
  }

  return {
    shellFor,
    serialise,
    sweep,
    end: (tenant: string, sessionId: string) => end(keyOf(tenant, sessionId)),
    closeAll: () => Promise.all([...shells.keys()].map(end)).then(() => undefined),
    get size() {
      return shells.size
    },
  }
}

export type ShellRegistry = ReturnType<typeof createShellRegistry>
