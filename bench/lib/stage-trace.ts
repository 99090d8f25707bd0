import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import type { Stamp } from '../servers/stage-stamps.js'

/** Microseconds on CLOCK_MONOTONIC, the clock the service's and the spawner's stamps use. */
export const now = () => Number(process.hrtime.bigint()) / 1000

/** The floor's own stages, stamped in this process as the spawner stamps the service's. */
export function spawnStamped(file: string, args: readonly string[], cwd?: string): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const stamps: Record<string, number> = { call: now() }
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    stamps.returned = now()
    child.stdout.resume()
    child.stderr.resume()
    child.once('error', reject)
    child.once('exit', () => {
      stamps.exit = now()
    })
    child.once('close', (code) => {
      stamps.close = now()
      if (code === 0) resolve(stamps)
      else reject(new Error(`${file} exited with ${code}`))
    })
  })
}

/** strace of `pid` and every thread and child, resolved once it is attached. */
export async function startStrace(pid: number, file: string): Promise<ChildProcess> {
  const tracer = spawn('strace', ['-f', '-ttt', '-s', '64', '-o', file, '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  await new Promise((resolve) => tracer.stderr.once('data', resolve))
  await new Promise((resolve) => setTimeout(resolve, 500))
  return tracer
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

export async function readStamps(file: string): Promise<Stamp[]> {
  for (let tries = 0; tries < 100 && !existsSync(file); tries += 1) await new Promise((r) => setTimeout(r, 50))
  return JSON.parse(readFileSync(file, 'utf8')) as Stamp[]
}
