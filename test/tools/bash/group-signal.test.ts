// Pins that a command signalling its own process group (`kill -KILL 0`) reaches only its own
// processes: not the spawner, not another call's command. With the sandbox off a PID namespace
// does not stop a group signal (docs/adr/0476-a-pid-namespace-command-gets-its-own-session-again.md);
// bubblewrap's `--new-session` keeps it inside (docs/adr/0475).
import { describe, expect, it, vi } from 'vitest'
import { BashTool } from '../../../src/tools/bash/bash-tool.js'
import { detectContainment } from '../../../src/tools/bash/containment.js'
import { commandLauncher } from '../../../src/tools/bash/launch-command.js'
import { createOutputCollector } from '../../../src/tools/bash/output-collector.js'
import { runShellCommand } from '../../../src/tools/bash/run-shell-command.js'
import { detectSandbox } from '../../../src/tools/bash/sandbox.js'
import { REAL_PROCESS_WAIT } from '../../helpers/real-process-wait.js'
import { createTestContext, createTestWorkspace } from '../../helpers/tool-context.js'
import { runTool } from '../helpers.js'
import { processesMatching } from './process-helpers.js'

async function spawnerPid(): Promise<number> {
  const state = await commandLauncher.start()
  if (state.mode !== 'spawner') throw new Error(`no spawner here: ${state.reason}`)
  return state.pid
}

const containment = detectContainment('off')

describe.skipIf(containment.containment !== 'pid-namespace')(`sandbox off (${containment.reason})`, () => {
  const run = (command: string, signal: AbortSignal) => {
    const output = createOutputCollector({ thresholdChars: 100_000, openBlob: () => Promise.reject(new Error('none')) })
    return runShellCommand({
      command,
      cwd: '/tmp',
      timeoutMs: 60_000,
      signal,
      output,
      sandbox: null,
      containment: 'pid-namespace',
    })
  }

  it("a command's kill -KILL 0 ends only its own call", async () => {
    const pid = await spawnerPid()
    const marker = '917.2461'
    const other = new AbortController()
    const running = run(`sleep ${marker}`, other.signal)
    await vi.waitFor(async () => expect(await processesMatching(marker)).not.toEqual([]), REAL_PROCESS_WAIT)

    const killer = await run('kill -KILL 0; echo survived', new AbortController().signal)
    expect(killer.timedOut).toBe(false)
    expect(killer.exitCode).not.toBe(0)

    // The other call still runs under the same spawner, and ends as a cancel, not a stopped spawner.
    expect(await processesMatching(marker)).not.toEqual([])
    expect(await spawnerPid()).toBe(pid)
    other.abort()
    expect(await running).toMatchObject({ aborted: true, timedOut: false })
  })

  it('a background job ends with the command, though nothing is signalled after its exit (docs/adr/0504)', async () => {
    const marker = '917.4683'
    const result = await run(`sleep ${marker} & echo started`, new AbortController().signal)
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, aborted: false })
    await vi.waitFor(async () => expect(await processesMatching(marker)).toEqual([]), REAL_PROCESS_WAIT)
  })
})

const sandbox = detectSandbox('auto')

describe.skipIf(sandbox.sandbox !== 'bwrap')(`bubblewrap (${sandbox.reason})`, () => {
  it("a sandboxed command's kill -KILL 0 ends only its own call", async () => {
    const workspace = await createTestWorkspace()
    try {
      const pid = await spawnerPid()
      const marker = '917.3572'
      const other = new AbortController()
      const context = (abortSignal?: AbortSignal) =>
        createTestContext({
          cwd: workspace.cwd,
          blobRoot: workspace.blobRoot,
          environment: { sandbox: 'bwrap', multiTenant: true },
          abortSignal,
        })
      const running = runTool(BashTool, { command: `sleep ${marker}` }, context(other.signal))
      await vi.waitFor(async () => expect(await processesMatching(marker)).not.toEqual([]), REAL_PROCESS_WAIT)

      await runTool(BashTool, { command: 'kill -KILL 0; echo survived' }, context())

      expect(await processesMatching(marker)).not.toEqual([])
      expect(await spawnerPid()).toBe(pid)
      other.abort()
      await running
    } finally {
      await workspace.cleanup()
    }
  })

  it('a background job ends with bubblewrap, though nothing is signalled after its exit (docs/adr/0504)', async () => {
    const workspace = await createTestWorkspace()
    try {
      const marker = '917.5794'
      const context = createTestContext({
        cwd: workspace.cwd,
        blobRoot: workspace.blobRoot,
        environment: { sandbox: 'bwrap', multiTenant: true },
      })
      const result = await runTool(BashTool, { command: `sleep ${marker} & echo started` }, context)
      expect(result).toMatchObject({ ok: true, data: { output: 'started', exitCode: 0 } })
      await vi.waitFor(async () => expect(await processesMatching(marker)).toEqual([]), REAL_PROCESS_WAIT)
    } finally {
      await workspace.cleanup()
    }
  })
})
