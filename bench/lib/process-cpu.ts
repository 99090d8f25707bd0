/**
 * CPU time of a process from /proc (Linux): its own, and that of the children it has waited for
 * (the sandboxes a spawner reaped). Fields 14–17 of /proc/<pid>/stat, after the parenthesised
 * command name: utime, stime, cutime, cstime, in clock ticks (100 a second on Linux).
 */
import { readFileSync } from 'node:fs'

const TICK_MS = 10

export type ProcessCpu = { ownMs: number; childrenMs: number }

export function processCpu(pid: number | 'self'): ProcessCpu {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  // After the name: state is field 3, so utime (14) is index 11.
  const tick = (index: number) => Number(fields[index] ?? Number.NaN)
  return { ownMs: (tick(11) + tick(12)) * TICK_MS, childrenMs: (tick(13) + tick(14)) * TICK_MS }
}

/** The pids of a process's direct children (its threads' `children` lists). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}
