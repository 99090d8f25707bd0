// Pins how the commands share the host with the service (docs/adr/0300-commands-run-at-a-lower-cpu-priority.md,
// docs/adr/0301-process-starts-are-paced.md) with real processes: a command runs at the configured
// niceness below the service's (through the spawner, in-process, and in bubblewrap where it works);
// a start announcing itself on fd 3 holds its turn until it does, and a Bash command cancelled
// while queued behind it never runs; /readyz says what is in force.
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os, { tmpdir } from 'node:os'
import path from 'node:path'
import { text } from 'node:stream/consumers'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BashTool } from '../../../src/tools/bash/bash-tool.js'
import { commandLauncher, createCommandLauncher } from '../../../src/tools/bash/launch-command.js'
import { createOutputCollector } from '../../../src/tools/bash/output-collector.js'
import { autogroupInForce } from '../../../src/tools/bash/process-priority.js'
import { runShellCommand } from '../../../src/tools/bash/run-shell-command.js'
import { detectSandbox } from '../../../src/tools/bash/sandbox.js'
import { nativeSpawnerMissing } from '../../../src/tools/bash/spawner-choice.js'
import { buildTestApp } from '../../helpers/build-test-app.js'
import { REAL_PROCESS_WAIT } from '../../helpers/real-process-wait.js'
import { createTestContext, createTestWorkspace } from '../../helpers/tool-context.js'
import { runTool } from '../helpers.js'

const SERVICE_NICE = os.getPriority()
const expectedNice = (increment: number) => Math.min(19, SERVICE_NICE + increment)
// Field 19 of /proc/<pid>/stat is the niceness; the fields after the command name start at field 3.
const NICE_OF_SHELL = `cut -d')' -f2- /proc/$$/stat | cut -d' ' -f18`

const groups: number[] = []
afterEach(() => {
  for (const pid of groups.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
})

async function niceOf(launcher: ReturnType<typeof createCommandLauncher>): Promise<number> {
  const child = await launcher.launch(['sh', '-c', NICE_OF_SHELL], { cwd: '/tmp', env: {} })
  const [output] = await Promise.all([text(child.stdout), child.closed])
  return Number(output.trim())
}

describe('the CPU priority of commands', () => {
  it('is the configured steps below the service for a command the spawner forks', async () => {
    const launcher = createCommandLauncher({ nice: 7 })
    expect(await launcher.start()).toMatchObject({ mode: 'spawner' })
    expect(await niceOf(launcher)).toBe(expectedNice(7))
    expect(launcher.processes()).toMatchObject({ nice: expectedNice(7), serviceNice: SERVICE_NICE })
  })

  it('is lowered as well when commands are forked in-process', async () => {
    const launcher = createCommandLauncher({ main: '/nonexistent/spawner-main.js', nice: 5 })
    expect(await launcher.start()).toMatchObject({ mode: 'in-process' })
    // In-process the priority is set right after the exec (docs/adr/0300): the command reads it
    // once the launch has resolved, which the gate file marks.
    const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-nice-'))
    const gate = path.join(scratch, 'gate')
    try {
      const child = await launcher.launch(
        ['sh', '-c', `while [ ! -e '${gate}' ]; do sleep 0.02; done; ${NICE_OF_SHELL}`],
        { cwd: '/tmp', env: {} },
      )
      await writeFile(gate, '')
      const [output] = await Promise.all([text(child.stdout), child.closed])
      expect(Number(output.trim())).toBe(expectedNice(5))
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
  })

  it("stays the service's with TOOLEXEC_PROCESS_NICE=0", async () => {
    const launcher = createCommandLauncher({ nice: 0 })
    expect(await niceOf(launcher)).toBe(SERVICE_NICE)
    expect(launcher.processes().reason).toContain("the service's priority")
  })

  const sandbox = detectSandbox('auto')
  it.skipIf(sandbox.sandbox !== 'bwrap')(
    `is the default 10 below for a sandboxed Bash command (${sandbox.reason})`,
    async () => {
      const workspace = await createTestWorkspace()
      try {
        const context = createTestContext({
          cwd: workspace.cwd,
          blobRoot: workspace.blobRoot,
          environment: { sandbox: 'bwrap', multiTenant: true },
        })
        const result = await runTool(BashTool, { command: NICE_OF_SHELL }, context)
        expect(result).toMatchObject({ ok: true, data: { output: `${expectedNice(10)}` } })
      } finally {
        await workspace.cleanup()
      }
    },
  )
})

describe('a start that announces itself on fd 3', () => {
  it('holds its turn until it writes there, then the next start goes', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-announce-'))
    const gate = path.join(scratch, 'gate')
    const launcher = createCommandLauncher({ maxStarting: 1 })
    try {
      // The command waits for the test's go before it announces: nothing here depends on timing.
      const waitThenAnnounce = `while [ ! -e '${gate}' ]; do sleep 0.02; done; printf . >&3; exec 3>&-; sleep 30`
      const first = await launcher.launch(['sh', '-c', waitThenAnnounce], {
        cwd: '/tmp',
        env: {},
        announcesStart: true,
      })
      groups.push(first.pid)
      let secondPid: number | undefined
      const second = launcher.launch(['sleep', '30'], { cwd: '/tmp', env: {} }).then((child) => {
        secondPid = child.pid
        groups.push(child.pid)
        return child
      })
      expect(launcher.processes()).toMatchObject({ maxStarting: 1, starting: 1, queued: 1 })
      expect(secondPid).toBeUndefined()
      await writeFile(gate, '')
      await second
      await vi.waitFor(() => expect(launcher.processes()).toMatchObject({ starting: 0, queued: 0 }), REAL_PROCESS_WAIT)
      expect(existsSync(gate)).toBe(true)
    } finally {
      await rm(scratch, { recursive: true, force: true })
    }
  })

  it('keeps a Bash command queued behind it, and a cancel takes that command out unstarted', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-queued-'))
    const gate = path.join(scratch, 'gate')
    const marker = path.join(scratch, 'ran')
    await commandLauncher.configure({ nice: 10, maxStarting: 1 })
    try {
      const waitThenAnnounce = `while [ ! -e '${gate}' ]; do sleep 0.02; done; printf . >&3; exec 3>&-; sleep 30`
      const holder = await commandLauncher.launch(['sh', '-c', waitThenAnnounce], {
        cwd: '/tmp',
        env: {},
        announcesStart: true,
      })
      groups.push(holder.pid)
      const cancel = new AbortController()
      const output = createOutputCollector({ thresholdChars: 1000, openBlob: () => Promise.reject(new Error('none')) })
      const queued = runShellCommand({
        command: `touch '${marker}'`,
        cwd: '/tmp',
        timeoutMs: 30_000,
        signal: cancel.signal,
        output,
        sandbox: null,
      })
      expect(commandLauncher.processes()).toMatchObject({ starting: 1, queued: 1 })
      cancel.abort()
      await expect(queued).rejects.toThrow('Command was aborted before it started.')
      expect(commandLauncher.processes()).toMatchObject({ starting: 1, queued: 0 })
      await writeFile(gate, '')
      await vi.waitFor(() => expect(commandLauncher.processes().starting).toBe(0), REAL_PROCESS_WAIT)
      expect(existsSync(marker)).toBe(false)
    } finally {
      await commandLauncher.configure({ nice: 10, maxStarting: os.availableParallelism() })
      await rm(scratch, { recursive: true, force: true })
    }
  })

  it('ends its turn when it exits without a word', async () => {
    const launcher = createCommandLauncher({ maxStarting: 1 })
    const silent = await launcher.launch(['true'], { cwd: '/tmp', env: {}, announcesStart: true })
    await silent.closed
    const next = await launcher.launch(['true'], { cwd: '/tmp', env: {} })
    await next.closed
    expect(launcher.processes()).toMatchObject({ starting: 0, queued: 0 })
  })
})

describe('/readyz', () => {
  it('says what is in force for the processes the service starts', async () => {
    const { app } = await buildTestApp({ env: { TOOLEXEC_PROCESS_NICE: '4', TOOLEXEC_MAX_STARTING_PROCESSES: '3' } })
    const ready = (await app.inject({ url: '/readyz' })).json()
    expect(ready.processes).toEqual({
      nice: expectedNice(4),
      service_nice: SERVICE_NICE,
      priority: expect.any(String),
      autogroup: expect.any(Boolean),
      // A group per command where the native spawner runs without a terminal (docs/adr/0576);
      // its session's autogroup at the commands' nice where autogroup applies (0578).
      command_groups: nativeSpawnerMissing() === undefined ? 'process-group' : 'session',
      autogroup_nice: autogroupInForce() ? expectedNice(4) : null,
      max_starting: 3,
      pacing: 'fixed',
      max_starting_floor: 3,
      max_starting_ceiling: 3,
      starting: 0,
      queued: 0,
      // The native spawner where it is built (docs/adr/0501-choosing-the-spawner.md).
      spawner: nativeSpawnerMissing() === undefined ? 'native' : 'node',
    })
    expect(commandLauncher.processes().maxStarting).toBe(3)
  })

  it('says the start limit adapts between the cores and 4 per core when none is set', async () => {
    const { app } = await buildTestApp({ env: {} })
    try {
      const ready = (await app.inject({ url: '/readyz' })).json()
      const cores = os.availableParallelism()
      expect(ready.processes).toMatchObject({
        max_starting: cores,
        pacing: 'adaptive',
        max_starting_floor: cores,
        max_starting_ceiling: cores * 4,
      })
    } finally {
      await commandLauncher.configure({ nice: 10, maxStarting: os.availableParallelism() })
    }
  })
})
