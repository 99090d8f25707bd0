/**
 * CPU time of a process from /proc (Linux), so a bench can state a figure as CPU per request or
 * per run beside its throughput: on a shared host a process waiting for a core moves its
 * requests/s, not its CPU per request (docs/adr/0490). Fields 14–17 of /proc/<pid>/stat, after the
 * parenthesised command name (which may hold spaces, hence the last ')'): utime, stime, cutime,
 * cstime, in clock ticks.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'

let ticksPerSecond: number | undefined

/** Clock ticks per second of /proc's times (`getconf CLK_TCK`, 100 on common kernels). */
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  return ticksPerSecond
}

/** The stat fields after the command name: state is index 0, utime (field 14) index 11. */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
}

export type ProcessCpu = { ownMs: number; childrenMs: number }

/** CPU of a process: its own, and that of the children it has waited for (the sandboxes a spawner reaped). */
export function processCpu(pid: number | 'self'): ProcessCpu {
  const fields = statFields(pid)
  const ms = (index: number) => (Number(fields[index] ?? Number.NaN) * 1000) / clockTicks()
  return { ownMs: ms(11) + ms(12), childrenMs: ms(13) + ms(14) }
}

/** The pids of a process's direct children (its threads' `children` lists). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/** Runs `work` and answers its result with the CPU the process spent meanwhile, per request it reports. */
export async function cpuPerRequest<T extends { requests: number }>(
  pid: number | undefined,
  work: () => Promise<T>,
): Promise<T & { cpuMicrosPerRequest: number }> {
  if (pid === undefined) throw new Error('the server process has no pid')
  const before = processCpu(pid).ownMs
  const figures = await work()
  const spentMicros = (processCpu(pid).ownMs - before) * 1000
  return { ...figures, cpuMicrosPerRequest: figures.requests > 0 ? spentMicros / figures.requests : Number.NaN }
}

/**
 * CPU time (user + system) a process's main thread used so far, ms; from /proc (Linux), NaN
 * elsewhere. The main thread's, not the process's: only its work delays a delivery; V8's helper
 * threads (collection, compilation) show in the process's figure too.
 */
export async function mainThreadCpuMs(pid: number | undefined): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/task/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime, in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks()
  } catch {
    return Number.NaN
  }
}

/**
 * Time a process's main thread spent runnable but waiting for a core so far, ms: the second field
 * of /proc/<pid>/task/<pid>/schedstat (ns on the run queue; Linux with scheduler statistics, NaN
 * elsewhere). Beside `mainThreadCpuMs` it splits a delay into working and waiting for the host.
 */
export async function mainThreadRunDelayMs(pid: number | undefined): Promise<number> {
  try {
    const schedstat = await readFile(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
    return Number(schedstat.split(' ')[1]) / 1e6
  } catch {
    return Number.NaN
  }
}
