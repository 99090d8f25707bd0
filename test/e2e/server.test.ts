// Pins the entry point: `npm start` builds and serves compiled JavaScript on the embedded defaults
// (in-memory state, local blob directory), a SIGTERM sent to npm alone reaches the server and shuts
// it down gracefully, and a bad environment value stops the start with a message naming the variable.
import { type ChildProcess, spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import { cleanEnvironment } from '../helpers/service-process.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** A `bwrap` that is installed but cannot create namespaces, first on the PATH. */
function brokenBwrapPath(): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'toolexec-bwrap-'))
  writeFileSync(path.join(directory, 'bwrap'), '#!/bin/sh\necho "No permissions to create new namespace" >&2\nexit 1\n')
  chmodSync(path.join(directory, 'bwrap'), 0o755)
  return `${directory}${path.delimiter}${process.env.PATH ?? ''}`
}

function run(command: string, args: string[], extra: Record<string, string>) {
  // Own process group, so a failed test can still stop whatever npm started.
  const child = spawn(command, args, {
    cwd: root,
    env: cleanEnvironment(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  // 'close', not 'exit': npm may exit before the server they started has written its last
  // lines; the pipes close only once every process holding them is gone.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return { child, exited, output: () => ({ stdout, stderr }) }
}

function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.pid === undefined) return
  try {
    process.kill(-child.pid, 'SIGTERM')
  } catch {
    // The group is already gone.
  }
}

/** The command line of a process (Linux /proc), or '' once it is gone. */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
  } catch {
    return ''
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('server.ts', () => {
  // The first `npm start` in a fresh checkout compiles everything (prestart): allow for it.
  it('serves with `npm start` from compiled JavaScript and stops on a SIGTERM sent to npm', {
    timeout: 180_000,
  }, async () => {
    // PORT=0 only so the test never collides with a real server on 8080; everything else is default.
    const server = run('npm', ['start', '--silent'], { PORT: '0' })
    onTestFinished(() => stop(server.child))
    const address = await new Promise<string>((resolve, reject) => {
      server.child.stdout.on('data', () => {
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output().stdout)
        if (match) resolve(match[1]!)
      })
      void server.exited.then((code) => reject(new Error(`exited ${code}: ${server.output().stderr}`)))
    })
    expect(await (await fetch(`${address}/healthz`)).json()).toEqual({ status: 'ok' })
    const response = await fetch(`${address}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_uses: [{ type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'echo hi' } }] }),
    })
    expect(((await response.json()) as { results: unknown[] }).results).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: 'hi' },
    ])
    const serverPid = (JSON.parse(server.output().stdout.split('\n')[0]!) as { pid: number }).pid
    expect(serverPid).not.toBe(server.child.pid)
    expect(commandOf(serverPid)).toContain('dist/server.js')
    // To npm only, as a process manager would: npm forwards it, and `exec` leaves no shell between.
    process.kill(server.child.pid!, 'SIGTERM')
    await server.exited
    expect(server.output().stdout).toContain('"signal":"SIGTERM","msg":"shutting down"')
    expect(isAlive(serverPid)).toBe(false)
  })

  it.each([
    ['PORT=eighty', { PORT: 'eighty' }, 'PORT'],
    ['HOST=0.0.0.0 without keys', { HOST: '0.0.0.0' }, 'TOOLEXEC_API_KEYS'],
    ['TOOLEXEC_SANDBOX=maybe', { TOOLEXEC_SANDBOX: 'maybe' }, 'TOOLEXEC_SANDBOX'],
    [
      'TOOLEXEC_SANDBOX=bwrap with a broken bwrap',
      { TOOLEXEC_SANDBOX: 'bwrap', PATH: brokenBwrapPath() },
      'TOOLEXEC_SANDBOX',
    ],
  ])('exits 1 on %s', async (_label, environment, variable) => {
    const server = run(process.execPath, ['--import', 'tsx', 'server.ts'], environment)
    onTestFinished(() => stop(server.child))
    expect(await server.exited).toBe(1)
    expect(server.output().stderr).toContain(`Invalid environment variable ${variable}`)
  })
})
