import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from './free-port.js'

/** Why the Redis tests are skipped on this machine, or undefined when `redis-server` is there. */
export const redisSkipReason: string | undefined = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' })
    return undefined
  } catch {
    return 'redis-server is not installed (Debian package redis-server; .ci/run installs it)'
  }
})()

export type RedisServerOptions = { appendOnly?: boolean }

export type RedisServer = {
  url: string
  port: number
  /** Stops the server (SIGTERM, so an AOF is flushed) and starts it again on the same port and data. */
  restart(options?: { downMs?: number }): Promise<void>
  stop(): Promise<void>
}

/** A real `redis-server` on a free loopback port, its data in a fresh temp directory. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const directory = mkdtempSync(path.join(tmpdir(), 'toolexec-redis-'))
  const port = await freePort()
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    directory,
    '--save',
    '',
    '--appendonly',
    options.appendOnly ? 'yes' : 'no',
    // Redis's own default: a restart by SIGTERM flushes everything anyway.
    '--appendfsync',
    'everysec',
    '--daemonize',
    'no',
  ]
  let child: ChildProcess | undefined
  const launch = async () => {
    child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    await new Promise<void>((resolve, reject) => {
      let output = ''
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000)
      child!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer)
          resolve()
        }
      })
      child!.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`redis-server exited with ${code}: ${output}`))
      })
    })
  }
  const halt = async () => {
    const running = child
    if (!running || running.exitCode !== null) return
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve())
      running.kill('SIGTERM')
    })
  }
  await launch()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async restart({ downMs = 0 } = {}) {
      await halt()
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs))
      await launch()
    },
    async stop() {
      await halt()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
