import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import os from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'

/** The CPU priority the commands run at, beside the service's own (docs/adr/0300-commands-run-at-a-lower-cpu-priority.md). */
export type ProcessPriority = {
  /** The niceness of the processes the service starts (-20 … 19; higher yields more). */
  readonly nice: number
  /** The service's own niceness. */
  readonly serviceNice: number
  /** What was done, or why the priority could not be lowered. */
  readonly reason: string
}

/** The highest niceness Linux knows: a process there runs only when nothing else wants the CPU. */
const MAX_NICE = 19

/**
 * Lowers the CPU priority of process `pid` to `increment` steps below the service's (capped at
 * 19), as `nice -n` would: processes it forks afterwards inherit it. Lowering needs no privilege;
 * should the kernel refuse (a seccomp profile), the process keeps the service's priority and
 * the reason says so.
 */
export function lowerPriority(pid: number, increment: number): ProcessPriority {
  const serviceNice = os.getPriority()
  const target = Math.min(MAX_NICE, serviceNice + increment)
  try {
    os.setPriority(pid, target)
    const reason =
      target === serviceNice
        ? `TOOLEXEC_PROCESS_NICE=${increment}: the service's priority`
        : `lowered by ${target - serviceNice} below the service's`
    return { nice: target, serviceNice, reason }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    return { nice: serviceNice, serviceNice, reason: `could not be lowered (${code}): the service's priority` }
  }
}

/**
 * Whether the kernel's autogroup scheduling governs the commands: with
 * `kernel.sched_autogroup_enabled=1`, a process in the root CPU cgroup that starts a session
 * (the spawner does; a command does where the spawner cannot give it only a process group,
 * docs/adr/0576) gets a CPU share of its own, equal to the service's whatever its nice value,
 * which counts only within that session.
 * In a container the processes sit in a CPU cgroup of their own and autogroup does not apply.
 */
export function autogroupInForce(read: (file: string) => string = (file) => readFileSync(file, 'utf8')): boolean {
  try {
    if (read('/proc/sys/kernel/sched_autogroup_enabled').trim() !== '1') return false
    const lines = read('/proc/self/cgroup').trim().split('\n')
    // cgroup v1: the cpu controller's line; v2: the one unified line (`0::/path`).
    const cpu =
      lines.find((line) => line.split(':')[1]?.split(',').includes('cpu')) ??
      lines.find((line) => line.startsWith('0::'))
    return cpu === undefined || cpu.slice(cpu.indexOf(':', cpu.indexOf(':') + 1) + 1) === '/'
  } catch {
    return false
  }
}

/** Without CAP_SYS_ADMIN the kernel takes one autogroup write per 100 ms, host-wide (EAGAIN otherwise). */
const AUTOGROUP_RETRY_MS = 120
const AUTOGROUP_TRIES = 5

/**
 * Gives the session that process `pid` leads (the spawner's) the scheduling weight of `nice`
 * under autogroup, by `/proc/PID/autogroup`: its commands, in process groups of that session,
 * then weigh as `nice` beside the service's session rather than as much as it
 * (docs/adr/0578-the-spawner-session-runs-at-the-commands-nice.md). One write per spawner, retried
 * while the kernel's rate limit refuses it. Resolves to the nice now in force for the session,
 * or null when it could not be set (the reason beside).
 */
export async function lowerAutogroup(
  pid: number,
  nice: number,
  write: (file: string, data: string) => Promise<void> = writeFile,
): Promise<{ nice: number | null; reason: string }> {
  let code = ''
  for (let tries = 0; tries < AUTOGROUP_TRIES; tries++) {
    try {
      await write(`/proc/${pid}/autogroup`, String(nice))
      return { nice, reason: 'set' }
    } catch (error) {
      code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
      if (code !== 'EAGAIN') break
      await delay(AUTOGROUP_RETRY_MS)
    }
  }
  return { nice: null, reason: `could not be set (${code})` }
}
