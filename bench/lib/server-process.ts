/**
 * Starts a server under test as its own process, the way production starts it (compiled
 * JavaScript, `node dist/server.js`), and waits until it answers. The benches' load generators
 * run in this process, never in the server's (docs/adr/0150-benchmarks-measure-separate-processes.md).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildAddon, buildSpawner } from '../../scripts/build-spawner.js'

export const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

let built = false

/** `tsc -p tsconfig.build.json` and the native spawner once per suite: dist/ is what production runs. */
export function buildOnce(): void {
  // The suite runner (bench/run-all.ts) builds once for every bench it starts.
  if (built || process.env.BENCH_BUILT === '1') return
  execFileSync(
    process.execPath,
    [path.join(REPOSITORY, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: REPOSITORY,
      stdio: 'inherit',
    },
  )
  if (!existsSync(path.join(REPOSITORY, 'dist/server.js'))) throw new Error('the build did not emit dist/server.js')
  // The native spawner the service of the build uses (docs/adr/0499), as `npm run build` compiles it.
  console.log(`native spawner: ${buildSpawner(path.join(REPOSITORY, 'dist'))}`)
  console.log(`lstat-mtimes addon: ${buildAddon(path.join(REPOSITORY, 'dist'))}`)
  // And beside the sources: the bare Glob rows stamp through it from this process (docs/adr/0586).
  console.log(`lstat-mtimes addon, the bench's own: ${buildAddon()}`)
  built = true
}

let benchBuilt = false

/** `tsc -p tsconfig.bench.json` once: the compiled engine benches and bench servers (run-all.ts builds it first). */
export function buildBenchOnce(): void {
  buildOnce()
  if (benchBuilt || process.env.BENCH_BUILT === '1') return
  execFileSync(
    process.execPath,
    [path.join(REPOSITORY, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.bench.json'],
    { cwd: REPOSITORY, stdio: 'inherit' },
  )
  benchBuilt = true
}

/** A port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
}

export type ServerProcess = {
  url: string
  child: ChildProcess
  /** RSS of the server process in bytes, from /proc (Linux). */
  rss(): Promise<number>
  stop(): Promise<void>
}

async function waitForHttp(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited with ${child.exitCode}`)
    try {
      await fetch(url)
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error(`${url}: no answer within 30 s`)
}

/**
 * Spawns `node <script> [args]` with `env` (PORT is chosen here) and resolves once `probePath`
 * answers. `nodeOptions` lets a bench add `--cpu-prof` and the like.
 */
export async function startProcess(options: {
  script: string
  env?: Record<string, string>
  args?: string[]
  nodeOptions?: string[]
  probePath?: string
}): Promise<ServerProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), options.script, ...(options.args ?? [])], {
    cwd: REPOSITORY,
    env: { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  await waitForHttp(`${url}${options.probePath ?? '/'}`, child)
  return {
    url,
    child,
    async rss() {
      const { readFile } = await import('node:fs/promises')
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8')
      const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
      return kilobytes * 1024
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

/** The service under test: dist/server.js with sandbox off, logs at warn, in a scratch workspace. */
export function startService(scratch: string, env: Record<string, string> = {}, nodeOptions: string[] = []) {
  buildOnce()
  return startServiceScript('dist/server.js', scratch, env, nodeOptions)
}

/** The service's HTTP shell with a constant-answer route (bench/servers/route-shell-server.ts), set up as startService. */
export function startRouteShell(scratch: string) {
  buildBenchOnce()
  return startServiceScript('dist/bench/servers/route-shell-server.js', scratch, {}, [])
}

function startServiceScript(script: string, scratch: string, env: Record<string, string>, nodeOptions: string[]) {
  return startProcess({
    script,
    env: {
      TOOLEXEC_WORKSPACE: path.join(scratch, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(scratch, 'blobs'),
      TOOLEXEC_SANDBOX: 'off',
      LOG_LEVEL: 'warn',
      ...env,
    },
    nodeOptions,
    probePath: '/healthz',
  })
}
