import { execFileSync } from 'node:child_process'

/** Pids of the processes whose command line holds `marker` (pgrep -f), none when there are none. */
export function processesMatching(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean)
  } catch {
    return []
  }
}
