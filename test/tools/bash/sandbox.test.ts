// Pins the bubblewrap sandbox: detection (both outcomes) and, where bwrap works here, what a sandboxed command can see and do.

import { execFileSync } from 'node:child_process'
import { existsSync, lstatSync, readlinkSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BashTool } from '../../../src/tools/bash/bash-tool.js'
import { detectSandbox, ETC_ENTRIES } from '../../../src/tools/bash/sandbox.js'
import { REAL_PROCESS_WAIT } from '../../helpers/real-process-wait.js'
import { createTestContext, createTestWorkspace, type TestWorkspace } from '../../helpers/tool-context.js'
import { runTool } from '../helpers.js'
import { processesMatching } from './process-helpers.js'

const detected = detectSandbox('auto')

describe('detectSandbox', () => {
  it('is off when asked', () => {
    expect(detectSandbox('off')).toEqual({ sandbox: 'off', reason: 'TOOLEXEC_SANDBOX=off' })
  })

  it('falls back to off with the reason when bwrap is missing (auto), and throws for an explicit bwrap', () => {
    const missing = '/nonexistent/bwrap-for-test'
    expect(detectSandbox('auto', missing)).toEqual({
      sandbox: 'off',
      reason: `bubblewrap is not usable (${missing} is not installed): Bash runs without a sandbox`,
    })
    expect(() => detectSandbox('bwrap', missing)).toThrow('TOOLEXEC_SANDBOX=bwrap but the sandbox is not usable')
  })

  it('falls back when bwrap exists but fails', () => {
    expect(detectSandbox('auto', 'false')).toMatchObject({
      sandbox: 'off',
      reason: expect.stringContaining('false failed (exit 1)'),
    })
  })

  it('reports a reason either way on this machine', () => {
    expect(detected.reason).not.toBe('')
  })
})

// Only meaningful where bubblewrap really runs; skipped (with this reason) elsewhere, never faked.
describe.skipIf(detected.sandbox !== 'bwrap')(`Bash in bubblewrap (${detected.reason})`, () => {
  let workspace: TestWorkspace
  beforeEach(async () => {
    workspace = await createTestWorkspace()
  })
  afterEach(() => workspace.cleanup())

  const context = (abortSignal?: AbortSignal) =>
    createTestContext({
      cwd: workspace.cwd,
      blobRoot: workspace.blobRoot,
      environment: { sandbox: 'bwrap', multiTenant: true },
      abortSignal,
    })

  it('writes inside the working directory, nowhere else', async () => {
    const result = await runTool(
      BashTool,
      {
        command:
          'echo inside > made.txt && cat made.txt; touch /usr/sandbox-test 2>&1; echo tmp > /tmp/t && cat /tmp/t',
      },
      context(),
    )
    expect(result).toMatchObject({ ok: true })
    const output = (result as { data: { output: string } }).data.output
    expect(output).toContain('inside')
    expect(output).toContain('Read-only file system')
    expect(await readFile(path.join(workspace.cwd, 'made.txt'), 'utf8')).toBe('inside\n')
  })

  it("hides other tenants' workspaces and blobs, shows its own blobs read-only", async () => {
    await writeFile(path.join(workspace.outside, 'other-tenant.txt'), 'secret')
    await mkdir(path.join(workspace.blobRoot, 'tenant-b'), { recursive: true })
    await writeFile(path.join(workspace.blobRoot, 'tenant-b', 'run-x.txt'), 'other blob')
    const ctx = context()
    await ctx.blobs.write(ctx.tenant, 'run-1-own.txt', 'own blob')
    const command = [
      `cat ${path.join(workspace.outside, 'other-tenant.txt')} 2>&1`,
      `cat ${path.join(workspace.blobRoot, 'tenant-b', 'run-x.txt')} 2>&1`,
      `cat ${path.join(ctx.environment.blobDirectory, 'run-1-own.txt')}`,
      `touch ${path.join(ctx.environment.blobDirectory, 'new.txt')} 2>&1`,
      'true',
    ].join('; ')
    const output = ((await runTool(BashTool, { command }, ctx)) as { data: { output: string } }).data.output
    expect(output).not.toContain('secret')
    expect(output).not.toContain('other blob')
    expect(output).toContain('own blob')
    expect(output.match(/No such file or directory/g)?.length).toBe(2)
    expect(output).toContain('Read-only file system')
  })

  it('runs as nobody without capabilities and sees only the /etc files programs need', async () => {
    const command = 'id -u; id -g; grep CapEff /proc/self/status; ls /etc/shadow /etc/ssl/private /etc/npmrc 2>&1; true'
    const output = ((await runTool(BashTool, { command }, context())) as { data: { output: string } }).data.output
    const [uid, gid, capabilities] = output.split('\n')
    expect([uid, gid]).toEqual(['65534', '65534'])
    expect(capabilities).toMatch(/^CapEff:\s+0+$/)
    expect(output.match(/No such file or directory/g)?.length).toBe(3)
  })

  it('shows as /etc exactly the listed entries of the host, read-only (docs/adr/0384-the-sandbox-etc-is-one-prepared-directory.md)', async () => {
    const expected = new Set<string>()
    for (const entry of ETC_ENTRIES.filter((entry) => lstatSync(entry, { throwIfNoEntry: false }) !== undefined)) {
      for (let parent = path.dirname(entry); parent !== '/etc'; parent = path.dirname(parent)) expected.add(parent)
      for (const line of execFileSync('find', [entry], { encoding: 'utf8' }).trim().split('\n')) expected.add(line)
    }
    const command = 'find /etc -mindepth 1; touch /etc/new-file 2>&1; true'
    const output = ((await runTool(BashTool, { command }, context())) as { data: { output: string } }).data.output
    const lines = output.split('\n')
    expect(lines.filter((line) => line.startsWith('/etc/')).sort()).toEqual([...expected].sort())
    expect(output).toContain('Read-only file system')
    expect(existsSync('/etc/new-file')).toBe(false)
  })

  it('runs in its own network namespace', async () => {
    const result = await runTool(BashTool, { command: 'readlink /proc/self/ns/net' }, context())
    const inside = (result as { data: { output: string } }).data.output
    expect(inside).toMatch(/^net:\[\d+\]$/)
    expect(inside).not.toBe(readlinkSync('/proc/self/ns/net'))
  })

  it('ends the whole sandbox on timeout, a setsid child included (docs/adr/0460-commands-start-without-a-session-of-their-own.md)', async () => {
    const marker = `${Date.now() % 100000}${process.pid % 1000}`
    const result = await runTool(
      BashTool,
      { command: `setsid sleep 3${marker} & sleep 4${marker}; wait`, timeout: 1_000 },
      context(),
    )
    expect(result).toMatchObject({ ok: false })
    expect(JSON.stringify(result)).toContain('timed out')
    await vi.waitFor(
      async () => expect(await processesMatching(marker), 'sandboxed processes').toEqual([]),
      REAL_PROCESS_WAIT,
    )
  })

  it('leaves no process behind when aborted', async () => {
    const marker = `${Date.now() % 100000}${process.pid % 1000}`
    const controller = new AbortController()
    let started: () => void = () => {}
    const running = new Promise<void>((resolve) => (started = resolve))
    const call = runTool(
      BashTool,
      { command: `echo go; sleep 1${marker} & sleep 2${marker}; wait` },
      context(controller.signal),
      () => started(),
    )
    await running
    await vi.waitFor(
      async () => expect(await processesMatching(`sleep 2${marker}`), 'the sandboxed sleep').not.toHaveLength(0),
      REAL_PROCESS_WAIT,
    )
    controller.abort()
    expect(await call).toMatchObject({ ok: false })
    await vi.waitFor(
      async () => expect(await processesMatching(marker), 'sandboxed processes').toEqual([]),
      REAL_PROCESS_WAIT,
    )
  })
})
