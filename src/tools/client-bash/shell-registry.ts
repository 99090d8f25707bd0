import { createSerialQueue } from '../../async/serial-queue.js'
import type { PersistentShell } from './persistent-shell.js'

type Entry = {
  shell: Promise<PersistentShell>
  /** When its last command ended (or it started): idle shells are swept and evicted by it. */
  lastUsedAt: number
  tenant: string
  sessionId: string
  /** A command (or the state's restore) is running in it: it is never evicted. */
  busy: boolean
}

export type ShellRegistryOptions = {
  /** Shells idle longer than this are ended by `sweep` (the session idle TTL). */
  idleTtlMs: number
  /** At most this many shells live at once on the instance (TOOLEXEC_MAX_SHELLS). */
  maxShells: number
  /** At most this many of one tenant (TOOLEXEC_MAX_SHELLS_PER_TENANT); default: `maxShells`. */
  maxShellsPerTenant?: number | undefined
  now?: () => number
}

/** No shell could be started without ending another tenant's or a running one. */
export class ShellCapError extends Error {
  override name = 'ShellCapError'
}

/**
 * The persistent shells of the `bash` client tool, one per session (docs/adr/0145-persistent-shell.md).
 * A shell is started on first use and ended when its session is deleted or expires (`sweep`),
 * when it is restarted, and at shutdown (`closeAll`). At a cap, a new shell may end only an idle
 * shell of its own tenant; if there is none, it is refused (docs/adr/0233-shell-caps-per-tenant.md):
 * one tenant never ends another's shell, and a shell running a command is never ended for room.
 */
export function createShellRegistry(options: ShellRegistryOptions) {
  const now = options.now ?? Date.now
  const maxPerTenant = options.maxShellsPerTenant ?? options.maxShells
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

  /** The tenant's idle shell used longest ago, if any. */
  function idlestOf(tenant: string): string | undefined {
    let found: [string, Entry] | undefined
    for (const candidate of shells) {
      const [, entry] = candidate
      if (entry.tenant !== tenant || entry.busy) continue
      if (!found || entry.lastUsedAt < found[1].lastUsedAt) found = candidate
    }
    return found?.[0]
  }

  /** Makes room for one more shell of `tenant`, ending only its own idle ones; throws when it cannot. */
  async function makeRoom(tenant: string): Promise<void> {
    let own = 0
    for (const entry of shells.values()) if (entry.tenant === tenant) own += 1
    if (own < maxPerTenant && shells.size < options.maxShells) return
    const victim = idlestOf(tenant)
    if (victim === undefined) {
      throw new ShellCapError(
        own >= maxPerTenant
          ? `this tenant has ${own} shells running commands (TOOLEXEC_MAX_SHELLS_PER_TENANT=${maxPerTenant}); try again when one is done`
          : `the service has ${shells.size} shells open (TOOLEXEC_MAX_SHELLS=${options.maxShells}); try again later`,
      )
    }
    await end(victim)
  }

  /**
   * The session's shell, started with `start` when it has none (or its last one ended), and
   * marked busy until `release`: the caller runs its command, then releases it.
   */
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
      entry.busy = true
      return entry.shell
    }
    if (entry) await end(key)
    await makeRoom(tenant)
    const shell = start()
    shells.set(key, { shell, lastUsedAt: now(), tenant, sessionId, busy: true })
    shell.catch(() => shells.delete(key))
    return shell
  }

  /** The session's command is over: its shell is idle from now. */
  function release(tenant: string, sessionId: string): void {
    const entry = shells.get(keyOf(tenant, sessionId))
    if (!entry) return
    entry.busy = false
    entry.lastUsedAt = now()
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
      const idle = !entry.busy && now() - entry.lastUsedAt > options.idleTtlMs
      if (idle || !(await exists(entry.tenant, entry.sessionId))) {
        await end(key)
        ended += 1
      }
    }
    return ended
  }

  return {
    shellFor,
    release,
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
