// Helpers for observing real processes from Bash tests (tests poll them with vi.waitFor, never sleep-then-assert).
import { readdir, readFile } from 'node:fs/promises'

export function processGroupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw error
  }
}

let markers = 0

/**
 * A `sleep` duration no other test process uses, to find a test's own processes by their command
 * line: test files run in parallel processes, and two that shared a literal marker (one file's
 * cases run for both spawners) saw each other's `sleep` and failed at random. The counter keeps it
 * unique in this process and the pid, padded to a fixed width, across processes.
 */
export function uniqueSleepMarker(): string {
  markers += 1
  return `${800 + markers}.${String(process.pid).padStart(7, '0')}`
}

/**
 * Live (non-zombie) members of a process group. A sandbox's init ends after its `bwrap` and is
 * reparented to the host's pid 1, which may reap it late: dead, it still counts for `kill(-pgid, 0)`.
 */
export async function liveGroupMembers(pgid: number): Promise<number[]> {
  const found: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (stat !== '' && state !== 'Z' && Number(group) === pgid) found.push(Number(entry))
  }
  return found
}

/** Live (non-zombie) processes whose command line contains `marker`. */
export async function processesMatching(marker: string): Promise<number[]> {
  const found: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\u0000', ' ')
      const status = await readFile(`/proc/${entry}/stat`, 'utf8')
      const state = status.slice(status.lastIndexOf(')') + 2, status.lastIndexOf(')') + 3)
      if (cmdline.includes(marker) && state !== 'Z') found.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return found
}
