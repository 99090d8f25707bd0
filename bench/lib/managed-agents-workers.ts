/**
 * The workers bench/managed-agents.ts can measure, each started as a process of its own against the
 * protocol double (docs/adr/0150-benchmarks-measure-separate-processes.md): the SDK's reference
 * EnvironmentWorker, and toolexec's worker (`node dist/server.js` in worker mode). A worker is one
 * entry here: a name and how to start it.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { buildOnce, REPOSITORY } from './server-process.js'

export interface WorkerTarget {
  baseURL: string
  environment: { id: string; key: string }
  /** A scratch directory the worker may use for its workdir or workspace. */
  scratch: string
}

export interface WorkerProcess {
  readonly child: ChildProcess
  /** CPU seconds (user + system) the process itself has used so far (not its children), from /proc (Linux). */
  cpuSeconds(): number
  stop(): Promise<void>
}

export interface WorkerUnderTest {
  readonly name: string
  start(target: WorkerTarget): WorkerProcess
}

const CLOCK_TICKS = 100

function spawnWorker(args: string[], env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, args, {
    cwd: REPOSITORY,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return {
    child,
    cpuSeconds() {
      // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised command name): utime, stime.
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
    },
    stop() {
      if (child.exitCode !== null) return Promise.resolve()
      return new Promise((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
    },
  }
}

/** The SDK's EnvironmentWorker with its default toolset: one session at a time, calls one after another. */
const referenceWorker: WorkerUnderTest = {
  name: 'sdk-reference',
  start: (target) =>
    spawnWorker(['--import', 'tsx', path.join(REPOSITORY, 'bench/servers/reference-worker.ts')], {
      BENCH_MA_BASE_URL: target.baseURL,
      BENCH_MA_ENVIRONMENT: target.environment.id,
      BENCH_MA_KEY: target.environment.key,
      BENCH_MA_WORKDIR: target.scratch,
    }),
}

/**
 * toolexec's worker, as production starts it. The variable names are those of the ma-worker branch
 * (docs/managed-agents.md); adjust here if they change.
 */
const toolexecWorker: WorkerUnderTest = {
  name: 'toolexec',
  start(target) {
    buildOnce()
    return spawnWorker([path.join(REPOSITORY, 'dist/server.js')], {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      TOOLEXEC_WORKSPACE: path.join(target.scratch, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(target.scratch, 'blobs'),
      TOOLEXEC_SANDBOX: 'off',
      TOOLEXEC_MANAGED_AGENTS_BASE_URL: target.baseURL,
      TOOLEXEC_MANAGED_AGENTS_ENVIRONMENT: target.environment.id,
      TOOLEXEC_MANAGED_AGENTS_KEY: target.environment.key,
    })
  },
}

export const WORKERS: Record<string, WorkerUnderTest> = {
  [referenceWorker.name]: referenceWorker,
  [toolexecWorker.name]: toolexecWorker,
}
