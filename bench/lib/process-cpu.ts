/**
 * The CPU time a server process under test spent (user + system), from /proc (Linux), so a bench
 * can state a figure as CPU per request beside its throughput: on a shared host a process waiting
 * for a core moves its requests/s, not its CPU per request (docs/adr/0490).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

let ticksPerSecond: number | undefined

/** Clock ticks per second of /proc's utime and stime (`getconf CLK_TCK`, 100 on common kernels). */
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  return ticksPerSecond
}

/** Microseconds of CPU the process `pid` has used so far. */
function processCpuMicros(pid: number): number {
  // Fields after the command name (which may hold spaces, hence the last ')'): utime is the 14th
  // field of the line, stime the 15th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / clockTicks()
}

/** Runs `work` and answers its result with the CPU the process spent meanwhile, per request it reports. */
export async function cpuPerRequest<T extends { requests: number }>(
  pid: number | undefined,
  work: () => Promise<T>,
): Promise<T & { cpuMicrosPerRequest: number }> {
  if (pid === undefined) throw new Error('the server process has no pid')
  const before = processCpuMicros(pid)
  const figures = await work()
  const spent = processCpuMicros(pid) - before
  return { ...figures, cpuMicrosPerRequest: figures.requests > 0 ? spent / figures.requests : Number.NaN }
}
