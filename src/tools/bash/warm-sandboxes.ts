import { statSync } from 'node:fs'
import { WRAPPER_SHELL } from './containment.js'
import { commandLauncher } from './launch-command.js'
import type { LaunchedCommand } from './launched-command.js'

/**
 * How many warm sandboxes may wait: per session (0 turns the pool off), per tenant and per
 * instance; a session's pool unused for `idleMs` is discarded (TOOLEXEC_WARM_SANDBOXES…).
 */
export type WarmSandboxSettings = { perSession: number; perTenant: number; perInstance: number; idleMs: number }

/** What the pool holds and did, for /readyz and /metrics. */
export type WarmSandboxesState = WarmSandboxSettings & {
  /** Sandboxes set up and waiting for a command. */
  ready: number
  /** Sandboxes being set up. */
  starting: number
  hits: number
  misses: number
  /** Thrown away unused: session deleted or idle, layout changed, shutdown, or gone by themselves. */
  discarded: number
}

/** Whose commands a sandbox may run: one session of one tenant, never another. */
export type WarmOwner = { tenant: string; sessionId: string }

/** Off until configured: a process that never serves Bash (tests of other parts) holds none. */
const OFF: WarmSandboxSettings = { perSession: 0, perTenant: 0, perInstance: 0, idleMs: 0 }

/**
 * The script of a warm sandbox, POSIX sh like the cold wrapper (docs/adr/0290-wrapper-shells-are-sh.md).
 * It says on fd 3 that the sandbox is set up, then blocks reading from stdin (no CPU while it
 * waits) the mode line `warmInput` starts with. `s`: it becomes a shell that reads the rest as its
 * script, in blocks, and runs the one line it is given (a long command: dash's `read` takes a
 * system call a byte; docs/adr/0530-a-long-warm-command-is-read-as-a-script.md). Else the mode line
 * is the count of the command's newlines: it reads that many lines and one more, keeping every
 * byte (`IFS=`, `-r`), and runs the command as soon as its last line is in, without waiting for the
 * pipe's end, exactly as a cold start does: `bash -c COMMAND`, stderr merged, fd 3 closed, stdin
 * /dev/null (docs/adr/0580-a-warm-command-runs-without-waiting-for-its-pipes-end.md). A pipe that
 * ends before the count is reached runs nothing. A discarded sandbox is killed, never given an input.
 */
export const WARM_SCRIPT = `printf . >&3; IFS= read -r m; [ "$m" = s ] && exec ${WRAPPER_SHELL} -s; c=; while [ "$m" -gt 0 ] && IFS= read -r l; do c="$c$l\n"; m=$((m - 1)); done; IFS= read -r l && [ "$m" = 0 ] && exec bash -c "$c$l" 2>&1 3>&- </dev/null`

/**
 * From this length on, a command takes the waiting shell longer to read byte by byte than one
 * more exec of dash takes (about 1.3 µs a byte against 2.3 ms on the loaded host: docs/adr/0530).
 */
const SCRIPT_FROM_CHARS = 2048

/**
 * What the service writes into a warm sandbox for `command`: a short one after the count of its
 * newlines, ended by one more newline so that the shell's last `read` returns at once (docs/adr/0580);
 * a long one after `s`, as one line `exec bash -c 'COMMAND' …` with the command single-quoted,
 * which keeps every byte but NUL (a command with a NUL never takes a warm sandbox), each `'` as
 * `'\''`. Either way bash gets the same argv as a cold start.
 */
export function warmInput(command: string): string {
  if (command.length < SCRIPT_FROM_CHARS) return `${command.split('\n').length - 1}\n${command}\n`
  return `s\nexec bash -c '${command.replaceAll("'", `'\\''`)}' 2>&1 3>&- </dev/null\n`
}
const WARM_SHELL = [WRAPPER_SHELL, '-c', WARM_SCRIPT, 'sh']

type Entry = { launched?: LaunchedCommand; ready: boolean; gone: boolean }
/** `calls`: the session's sandboxed commands so far, across layout changes. */
type Pool = { owner: WarmOwner; key: string; entries: Set<Entry>; calls: number; idle?: NodeJS.Timeout }

type Launch = (
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string>; announcesStart: true; takesInput: true; reportsStatus: true },
) => Promise<LaunchedCommand>

const ownerKey = (owner: WarmOwner) => `${owner.tenant}\u0000${owner.sessionId}`

/**
 * Which directories the binds name now (device and inode): a directory removed and made again at
 * the same path is another one, and a sandbox bound to the old one is not taken.
 */
function identities(directories: readonly string[]): string {
  return directories
    .map((directory) => {
      try {
        const { dev, ino } = statSync(directory)
        return `${dev}:${ino}`
      } catch {
        return 'missing'
      }
    })
    .join(',')
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}

/**
 * Sandboxes started ahead of demand (docs/adr/0390-warm-sandboxes.md): a bubblewrap set up with
 * one session's exact mounts, cwd and environment, waiting for one command. A command takes one
 * and it is never given back; the pool refills in the background, through the start pacer and at
 * the commands' lower priority. Keyed by session and by the whole sandbox argv, so a command only
 * ever runs in a sandbox built for its own session's layout as it is now; another layout, the
 * session's end or its idleness discards them (their processes killed).
 */
function createWarmSandboxes(launch: Launch = (argv, options) => commandLauncher.launch(argv, options)) {
  let settings = OFF
  const pools = new Map<string, Pool>()
  const counts = { hits: 0, misses: 0, discarded: 0 }

  const all = () => [...pools.values()].flatMap((pool) => [...pool.entries])
  const ofTenant = (tenant: string) =>
    [...pools.values()].filter((pool) => pool.owner.tenant === tenant).reduce((n, pool) => n + pool.entries.size, 0)

  const end = (launched: LaunchedCommand) => {
    killGroup(launched.pid)
    launched.stdout.destroy()
    launched.stderr.resume()
  }

  const discardEntry = (pool: Pool, entry: Entry) => {
    if (!pool.entries.delete(entry)) return
    counts.discarded++
    entry.gone = true
    if (entry.launched) end(entry.launched)
  }

  const discardPool = (key: string) => {
    const pool = pools.get(key)
    if (!pool) return
    pools.delete(key)
    clearTimeout(pool.idle)
    for (const entry of [...pool.entries]) discardEntry(pool, entry)
  }

  const fill = (pool: Pool, argv: readonly string[], cwd: string, env: Record<string, string>) => {
    while (
      pools.get(ownerKey(pool.owner)) === pool &&
      pool.entries.size < settings.perSession &&
      ofTenant(pool.owner.tenant) < settings.perTenant &&
      all().length < settings.perInstance
    ) {
      const entry: Entry = { ready: false, gone: false }
      pool.entries.add(entry)
      // Bubblewrap says its exit on fd 4 itself: the call ends without the spawner's word (docs/adr/0473).
      const [bwrap = '', ...rest] = argv
      launch([bwrap, '--json-status-fd', '4', ...rest, ...WARM_SHELL], {
        cwd,
        env,
        announcesStart: true,
        takesInput: true,
        reportsStatus: true,
      }).then(
        (launched) => {
          entry.launched = launched
          // Discarded while it was being started: it goes at once.
          if (entry.gone) return end(launched)
          launched.started.then(() => {
            entry.ready = !entry.gone
          })
          // Gone by itself before any command took it (its setup failed, killed from outside).
          launched.exited.then(
            () => discardEntry(pool, entry),
            () => discardEntry(pool, entry),
          )
        },
        () => {
          // Could not start (spawner stopped, a bind source gone): the next miss tries again.
          pool.entries.delete(entry)
        },
      )
    }
  }

  const keepAlive = (pool: Pool, key: string) => {
    clearTimeout(pool.idle)
    pool.idle = setTimeout(() => discardPool(key), settings.idleMs)
    pool.idle.unref()
  }

  const discardAll = () => {
    for (const key of [...pools.keys()]) discardPool(key)
  }

  return {
    /** The bounds from now on; 0 per session discards every warm sandbox and starts none. */
    configure(next: WarmSandboxSettings): void {
      settings = next
      if (next.perSession === 0) discardAll()
    },
    /**
     * A warm sandbox of this session built by exactly `argv` (bwrap and its arguments) with
     * `env`, its `binds` the same directories as now, given `command` to run; undefined (a miss)
     * when none is ready. From the session's second command the pool then fills, once `after`
     * settles (the command ended: docs/adr/0470-warm-refills-wait-for-the-command.md). Either
     * way the session's sandboxes of another layout go.
     */
    take(
      owner: WarmOwner,
      argv: readonly string[],
      options: {
        cwd: string
        env: Record<string, string>
        command: string
        binds: readonly string[]
        after: Promise<unknown>
      },
    ): LaunchedCommand | undefined {
      if (settings.perSession === 0) return undefined
      const sessionKey = ownerKey(owner)
      const key = `${JSON.stringify(argv)}\u0000${JSON.stringify(options.env)}\u0000${identities(options.binds)}`
      let pool = pools.get(sessionKey)
      const calls = (pool?.calls ?? 0) + 1
      if (pool && pool.key !== key) discardPool(sessionKey)
      pool = pools.get(sessionKey)
      if (!pool) {
        pool = { owner, key, entries: new Set(), calls }
        pools.set(sessionKey, pool)
      }
      pool.calls = calls
      keepAlive(pool, sessionKey)
      // A NUL cannot be in an argv: such a command goes the cold way, and fails as it does there.
      const entry = options.command.includes('\u0000')
        ? undefined
        : [...pool.entries].find((candidate) => candidate.ready && !candidate.gone)
      if (entry) pool.entries.delete(entry)
      const launched = entry?.launched
      // The command first: it is what the caller waits for.
      launched?.input?.(warmInput(options.command))
      // From a session's second command on: a run without a session (its own, ended with it)
      // that runs one command never leaves sandboxes nobody will take (docs/adr/0391). Not before
      // the command ended: a refill's setup competes for the CPU and for a start turn with the
      // command, cold or warm, that a caller waits for (docs/adr/0470).
      if (calls >= 2) {
        // One turn later still: the call's result, its run's end and its answer are written in the
        // microtasks that follow `after`; the refill's fork and the handles it sends back come
        // after them, not on the call's path (docs/adr/0484-a-refill-waits-for-the-answer.md).
        const refill = () => setImmediate(() => fill(pool, argv, options.cwd, options.env))
        options.after.then(refill, refill)
      }
      if (!launched?.input) {
        counts.misses++
        return undefined
      }
      counts.hits++
      return launched
    },
    /** The session's warm sandboxes go (the session was deleted). */
    discardSession(owner: WarmOwner): void {
      discardPool(ownerKey(owner))
    },
    /** Every warm sandbox goes (shutdown, pool turned off). */
    discardAll,
    state(): WarmSandboxesState {
      const entries = all()
      const ready = entries.filter((entry) => entry.ready).length
      return { ...settings, ready, starting: entries.length - ready, ...counts }
    },
    /** The process group leaders of the warm sandboxes waiting now (tests look at their state). */
    pids(owner?: WarmOwner): number[] {
      const chosen = owner ? [pools.get(ownerKey(owner))].filter((pool) => pool !== undefined) : [...pools.values()]
      return chosen.flatMap((pool) =>
        [...pool.entries].flatMap((entry) => (entry.ready && entry.launched ? [entry.launched.pid] : [])),
      )
    },
  }
}

/** The service's one pool: configured by plugins/sandbox.ts, used by every sandboxed Bash command. */
export const warmSandboxes = createWarmSandboxes()
