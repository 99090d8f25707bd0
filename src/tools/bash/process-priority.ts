import os from 'node:os'

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
export const MAX_NICE = 19

/**
 * Lowers the CPU priority of process `pid` to `increment` steps below the service's (capped at
 * 19), as `nice -n` would: processes it forks afterwards inherit it. Lowering needs no privilege;
 * should the kernel refuse (a seccomp profile), the process keeps the service's priority and
 * the reason says so.
 */
export function lowerPriority(pid: number, increment: number): ProcessPriority {
  const serviceNice = os.getPriority()
  const target = Math.min(MAX_NICE, serviceNice + increment)
  if (target === serviceNice) {
    return { nice: serviceNice, serviceNice, reason: `TOOLEXEC_PROCESS_NICE=${increment}: the service's priority` }
  }
  try {
    os.setPriority(pid, target)
    return { nice: target, serviceNice, reason: `lowered by ${target - serviceNice} below the service's` }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    return { nice: serviceNice, serviceNice, reason: `could not be lowered (${code}): the service's priority` }
  }
}
