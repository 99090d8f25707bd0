import { readdirSync, readFileSync } from 'node:fs'
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
 * Whether a process of the group is still running. Zombies do not count: they are dead and
 * only wait for their new parent (often a container's pid 1, which may reap slowly) to collect
 * them. On Linux this reads /proc; elsewhere any member, zombie or not, counts.
 */
function isProcessGroupAlive(pgid: number): boolean {
  if (!groupSignalable(pgid)) return false
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return true
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue
    }
    // Fields after the parenthesised command name: state, ppid, pgrp, …
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true
  }
  return false
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
  while (isProcessGroupAlive(pgid)) {
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
  if (!isProcessGroupAlive(pgid)) return
  signalGroup(pgid, 'SIGTERM')
  if (await waitUntilGone(pgid, graceMs)) return
  signalGroup(pgid, 'SIGKILL')
  await waitUntilGone(pgid, 5_000)
}
