// Pins, on a listening server with the sandbox off: a `setsid` child of a Bash call is gone after
// the call's timeout and after a cancel (the PID-namespace containment), a 2 s timeout answers
// promptly, /readyz names the containment; and a full or read-only blob directory fails an
// oversized call at once with its preview, shows in /readyz and in the metrics
// (docs/reliability.md, docs/adr/0122-unstorable-output-fails-the-call.md, docs/adr/0123-containment-without-bubblewrap.md).
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { detectContainment } from '../../src/tools/bash/containment.js'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'

type ToolResult = { tool_use_id: string; content: string; is_error?: boolean }

const containment = detectContainment('off')
const ALLOW_BASH = { permissions: { allow: ['Bash'] } }
const canMount = process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0

/** Whether a process whose command line holds `marker` still runs anywhere on the host. */
function running(marker: string): boolean {
  return spawnSync('pgrep', ['-f', marker]).status === 0
}

async function post(server: TestServer, route: string, body: unknown) {
  const response = await fetch(`${server.baseUrl}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

const bash = (id: string, command: string, timeout?: number) => ({
  type: 'tool_use',
  id,
  name: 'Bash',
  input: timeout === undefined ? { command } : { command, timeout },
})

describe.skipIf(containment.containment !== 'pid-namespace')(`Bash containment (${containment.reason})`, () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ lifetime: 'manual', settings: ALLOW_BASH })
  })
  afterAll(() => server.close())

  it('names the containment in /readyz', async () => {
    const response = await fetch(`${server.baseUrl}/readyz`)
    expect(await response.json()).toMatchObject({ bash_containment: 'pid-namespace' })
  })

  // The answer comes when the timeout ends the command, not when `sleep 600` would: the test's own
  // 20 s timeout is the bound, no wall-clock assertion (a loaded host may take seconds more).
  it('ends a setsid child with a 2 s timeout, and answers when the timeout ends the command', async () => {
    const marker = '987.6543'
    const { status, body } = await post(server, '/v1/runs', {
      tool_uses: [bash('toolu_t', `setsid sleep ${marker} & sleep 600`, 2_000)],
    })
    expect(status).toBe(200)
    const [result] = body.results as ToolResult[]
    expect(result?.content).toContain('timed out after 2000 ms')
    expect(running(marker)).toBe(false)
  })

  // Each wait polls until its state is reached, bounded only by the test's own timeout: a loaded
  // host may take seconds to start the sandbox or to end its processes, and no wall-clock bound
  // inside the test may fail it for that. A child the cancel never ends times the test out.
  it('ends a setsid child when the run is cancelled', async () => {
    const marker = '876.5432'
    const { body } = await post(server, '/v1/runs', {
      wait: false,
      tool_uses: [bash('toolu_c', `setsid sleep ${marker} & sleep 30`)],
    })
    const runId = body.run_id as string
    while (!running(marker)) await delay(50)
    await post(server, `/v1/runs/${runId}/cancel`, {})
    let status = 'running'
    while (status === 'running') {
      status = ((await (await fetch(`${server.baseUrl}/v1/runs/${runId}`)).json()) as { status: string }).status
      if (status === 'running') await delay(50)
    }
    expect(status).toBe('cancelled')
    while (running(marker)) await delay(50)
  }, 60_000)

  it('ends a setsid child when the server process is killed with SIGKILL', async () => {
    const marker = '765.4321'
    const script = [
      "import { runShellCommand } from './src/tools/bash/run-shell-command.ts'",
      "import { createOutputCollector } from './src/tools/bash/output-collector.ts'",
      'const output = createOutputCollector({ thresholdChars: 1000, openBlob: () => Promise.reject(new Error("no")) })',
      `runShellCommand({ command: 'setsid sleep ${marker} & sleep 60', cwd: '/tmp', timeoutMs: 60000, signal: new AbortController().signal, output, sandbox: null, containment: 'pid-namespace' })`,
    ].join('\n')
    const server = execFileSync(
      'sh',
      ['-c', `node --import tsx --input-type=module -e "$0" >/dev/null 2>&1 & echo $!`, script],
      {
        cwd: path.resolve(import.meta.dirname, '../..'),
        encoding: 'utf8',
      },
    ).trim()
    const deadline = Date.now() + 15_000
    while (!running(marker) && Date.now() < deadline) await delay(100)
    expect(running(marker)).toBe(true)
    process.kill(Number(server), 'SIGKILL')
    const gone = Date.now() + 10_000
    while (running(marker) && Date.now() < gone) await delay(50)
    expect(running(marker)).toBe(false)
  }, 30_000)
})

describe.skipIf(!canMount)('a full or read-only blob directory', () => {
  let server: TestServer
  let blobs: string
  beforeAll(async () => {
    server = await startTestServer({ lifetime: 'manual', settings: ALLOW_BASH })
    blobs = path.join(server.root, 'blobs')
    await mkdir(blobs, { recursive: true })
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', blobs])
  })
  afterAll(async () => {
    spawnSync('umount', [blobs])
    await server.close()
  })

  it('fails an oversized call at once, keeping the preview, and counts it', async () => {
    // At once: not after `sleep 600` (the test's own 20 s timeout is the bound, no wall-clock assertion).
    const { body } = await post(server, '/v1/runs', {
      tool_uses: [bash('toolu_big', "head -c 400000 /dev/zero | tr '\\0' a; sleep 600", 60_000)],
    })
    const [result] = body.results as ToolResult[]
    expect(result?.is_error).toBe(true)
    expect(result?.content).toContain('could not be stored (ENOSPC)')
    expect(result?.content).toContain('a'.repeat(1_000))
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text()
    expect(metrics).toMatch(/^toolexec_blob_write_failures_total 1$/m)
    const ready = await fetch(`${server.baseUrl}/readyz`)
    expect(await ready.json()).toMatchObject({ blob_storage: { write_failures: 1, last_error: 'ENOSPC' } })
  }, 30_000)

  it('reports a read-only blob directory in /readyz with 503', async () => {
    execFileSync('mount', ['-o', 'remount,ro', blobs])
    try {
      const ready = await fetch(`${server.baseUrl}/readyz`)
      expect(ready.status).toBe(503)
      expect(await ready.json()).toMatchObject({
        status: 'blob_storage_unwritable',
        blob_storage: { writable: false, last_error: 'EROFS' },
      })
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', blobs])
    }
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200)
  })
})
