import { spawn } from 'node:child_process'
import { readFileSync, readlinkSync } from 'node:fs'
import os from 'node:os'
import type { Readable } from 'node:stream'
import { WARM_SCRIPT, warmInput } from '../../src/tools/bash/warm-sandboxes.js'
import { BWRAP_FLOOR } from './command-parts.js'
import { childPids } from './process-cpu.js'
import type { ServerProcess } from './server-process.js'
import { spawnerPid } from './warm-cpu.js'

/** The cold floor: bare bubblewrap running `bash -c true`, until it exited and its pipes closed. */
export function bareSandbox(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bwrap', [...BWRAP_FLOOR, 'bash', '-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.resume()
    child.stderr.resume()
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`bwrap exited with ${code}`))))
  })
}

/** How a warm sandbox is started: argv, environment, cwd, and whether in a session of its own. */
export type WarmLaunch = {
  argv: string[]
  env?: Record<string, string>
  cwd?: string
  ownSession: boolean
  /** The niceness it runs at (the service's commands: TOOLEXEC_PROCESS_NICE, docs/adr/0300); default this process's. */
  nice?: number
}

export const FLOOR_WARM: WarmLaunch = {
  argv: ['bwrap', ...BWRAP_FLOOR, 'sh', '-c', WARM_SCRIPT, 'sh'],
  ownSession: false,
}

/**
 * The service's own warm sandbox as its spawner started it (argv, environment and cwd read from
 * /proc of one waiting in the pool), in a session of its own as there; undefined when none waits.
 */
export function serviceWarmLaunch(service: ServerProcess): WarmLaunch | undefined {
  const spawner = spawnerPid(service)
  const pid =
    spawner === undefined ? undefined : childPids(spawner).find((child) => readProc(child, 'comm') === 'bwrap\n')
  if (pid === undefined) return undefined
  const fields = (text: string) => text.split('\0').slice(0, -1)
  const env = Object.fromEntries(
    fields(readProc(pid, 'environ')).map((line) => [
      line.slice(0, line.indexOf('=')),
      line.slice(line.indexOf('=') + 1),
    ]),
  )
  // Field 19 of /proc/PID/stat, counted after the command name's closing parenthesis.
  const nice = Number(
    readProc(pid, 'stat')
      .slice(readProc(pid, 'stat').lastIndexOf(')') + 2)
      .split(' ')[16],
  )
  return {
    argv: fields(readProc(pid, 'cmdline')),
    env,
    cwd: readlinkSync(`/proc/${pid}/cwd`),
    ownSession: true,
    ...(Number.isInteger(nice) ? { nice } : {}),
  }
}

const readProc = (pid: number, file: string) => readFileSync(`/proc/${pid}/${file}`, 'utf8')

/**
 * A warm sandbox alone (docs/adr/0483-a-warm-calls-parts-are-timed-beside-it.md), bare from this
 * process: started and set up untimed, then timed from its command written to its exit and its
 * pipes closed. With the floor's arguments, or with the service's layout (its bubblewrap status
 * fd included), in a session of its own as the service's are.
 */
export async function bareWarmSandbox(launch: WarmLaunch): Promise<() => Promise<void>> {
  const [bwrap = 'bwrap', ...bwrapArgs] = launch.argv
  const withStatus = bwrapArgs.includes('--json-status-fd')
  // At the service's commands' priority, as its sandbox runs (docs/adr/0485): `nice` execs bubblewrap.
  const [file, args] =
    launch.nice === undefined
      ? [bwrap, bwrapArgs]
      : ['nice', ['-n', String(launch.nice - os.getPriority()), bwrap, ...bwrapArgs]]
  const child = spawn(file, args, {
    ...(launch.env ? { env: launch.env } : {}),
    ...(launch.cwd ? { cwd: launch.cwd } : {}),
    detached: launch.ownSession,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe', ...(withStatus ? ['pipe' as const] : [])],
  })
  child.stdout.resume()
  child.stderr.resume()
  ;(child.stdio[4] as Readable | null | undefined)?.resume()
  const closed = new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`bwrap exited with ${code}`))))
  })
  await new Promise((resolve) => child.stdio[3]?.once('data', resolve))
  return () => {
    child.stdin.end(warmInput('true'))
    return closed
  }
}
