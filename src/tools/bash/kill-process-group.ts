import { readdir, readFile } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'

const POLL_MS = 25

function groupSignalable(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The process groups with a running member. Zombies do not count: they are dead and only wait
 * for their new parent (often a container's pid 1, which may reap slowly) to collect them.
 * Read from /proc asynchronously, and shared: every call waiting on its group in the same
 * moment uses one scan, so hundreds of ending calls cost one pass rather than hundreds of
 * synchronous ones on the event loop (docs/adr/0121-spawn-and-reap-off-the-event-loop.md).
 */
type Groups = Set<number> | null
let running: Promise<Groups> | undefined
let queued: Promise<Groups> | undefined

/** A scan that started before the caller asked may miss its newest processes: join the next one. */
function liveGroups(): Promise<Groups> {
  if (!running) return startScan()
  queued ??= running.then(() => {
    queued = undefined
    return startScan()
  })
  return queued
}

function startScan(): Promise<Groups> {
  const scan: Promise<Groups> = scanGroups().finally(() => {
    if (running === scan) running = undefined
  })
  running = scan
  return scan
}

async function scanGroups(): Promise<Set<number> | null> {
  let entries: string[]
  try {
    entries = await readdir('/proc')
  } catch {
    return null
  }
  const groups = new Set<number>()
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
        if (stat === '') return
        // Fields after the parenthesised command name: state, ppid, pgrp, …
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        if (state !== 'Z' && state !== 'X') groups.add(Number(pgrp))
      }),
  )
  return groups
}

/** Whether a process of the group is still running; without /proc any member, zombie or not, counts. */
async function isProcessGroupAlive(pgid: number): Promise<boolean> {
  if (!groupSignalable(pgid)) return false
  const groups = await liveGroups()
  return groups === null || groups.has(pgid)
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

async function waitUntilGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (await isProcessGroupAlive(pgid)) {
    if (Date.now() >= deadline) return false
    await delay(POLL_MS)
  }
  return true
}

/**
 * SIGTERM to the whole process group, SIGKILL to whatever is left after `graceMs`, then waits
 * (bounded) until nothing of the group runs, so a call that returns leaves no process behind.
 */
export async function killProcessGroup(pgid: number, graceMs = 2_000): Promise<void> {
  if (!(await isProcessGroupAlive(pgid))) return
  signalGroup(pgid, 'SIGTERM')
  if (await waitUntilGone(pgid, graceMs)) return
  signalGroup(pgid, 'SIGKILL')
  await waitUntilGone(pgid, 5_000)
}

/** Resolves true once `exited` settles, false after `ms`. */
function settlesWithin(exited: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    const done = () => {
      clearTimeout(timer)
      resolve(true)
    }
    exited.then(done, done)
  })
}

/**
 * The same ending for a command started without a process group of its own (`sameSession`):
 * SIGTERM to its first process by its handle, SIGKILL after `graceMs` (at once when 0), then
 * waits (bounded) for its exit. What holds its other processes ends them with it: bubblewrap's
 * PID namespace dies with `bwrap`, `unshare --kill-child`'s with `unshare`
 * (docs/adr/0460-commands-start-without-a-session-of-their-own.md).
 */
export async function killCommand(
  command: { signal(signal: NodeJS.Signals): void; exited: Promise<unknown> },
  graceMs = 2_000,
): Promise<void> {
  if (graceMs > 0) {
    command.signal('SIGTERM')
    if (await settlesWithin(command.exited, graceMs)) return
  }
  command.signal('SIGKILL')
  await settlesWithin(command.exited, 5_000)
}
