import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { freePort } from './free-port.js'
import { waitUntilHealthy } from './wait-until-healthy.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** The environment without any toolexec variable of the caller's, plus `extra`. */
export function cleanEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const environment = { ...process.env }
  for (const key of Object.keys(environment)) {
    if (key.startsWith('TOOLEXEC_') || key.startsWith('CLAUDE_CODE_') || key === 'HOST' || key === 'PORT') {
      delete environment[key]
    }
  }
  return { ...environment, ...extra }
}

export type ServiceProcess = {
  baseUrl: string
  wsUrl: string
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
  /** SIGKILL to the whole process group: the instance dies without a word. */
  kill(): void
  stop(): Promise<void>
}

/** `server.ts` as its own process (as `npm start` runs it), ready once /healthz answers. */
export async function startServiceProcess(environment: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: root,
    env: cleanEnvironment({ HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...environment }),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group, so a SIGKILL takes tsx, node and nothing of the test runner.
    detached: true,
  })
  let output = ''
  child.stdout!.on('data', (chunk) => {
    output += chunk
  })
  child.stderr!.on('data', (chunk) => {
    output += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  const signal = (name: NodeJS.Signals) => {
    if (child.exitCode !== null || child.pid === undefined) return
    try {
      process.kill(-child.pid, name)
    } catch {
      // Already gone.
    }
  }
  const baseUrl = `http://127.0.0.1:${port}`
  await waitUntilHealthy(`${baseUrl}/healthz`, {
    name: 'server',
    child,
    output: () => output,
    kill: () => signal('SIGKILL'),
    timeoutMs: 30_000,
  })
  return {
    baseUrl,
    wsUrl: `ws://127.0.0.1:${port}`,
    child,
    output: () => output,
    exited,
    kill: () => signal('SIGKILL'),
    async stop() {
      signal('SIGTERM')
      const timer = setTimeout(() => signal('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    },
  }
}
