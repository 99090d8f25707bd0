// Helpers for observing real processes from Bash tests (bounded polling, never sleeps-then-assert).
import { readdir, readFile } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'

export function processGroupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw error
  }
}

/** Polls until `condition` holds, failing after a generous bound. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  boundMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + boundMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for: ${what}`)
    await delay(25)
  }
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
