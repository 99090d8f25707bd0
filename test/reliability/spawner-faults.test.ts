// Pins, on a listening server: when the spawner process that forks Bash commands is killed under a
// running call, the call ends with an error result that says so (not a hang, not a lost result),
// its processes are gone, and the next call runs in a new spawner (docs/adr/0160-a-spawner-process-forks-bash.md).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { commandLauncher } from '../../src/tools/bash/launch-command.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'
import { processesMatching, uniqueSleepMarker } from '../tools/bash/process-helpers.js'

type ToolResult = { tool_use_id: string; content: string; is_error?: boolean }

async function runBash(server: TestServer, id: string, command: string): Promise<ToolResult> {
  const response = await fetch(`${server.baseUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tool_uses: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] }),
  })
  expect(response.status).toBe(200)
  const [result] = ((await response.json()) as { results: ToolResult[] }).results
  return result as ToolResult
}

async function spawnerPid(): Promise<number> {
  const state = await commandLauncher.start()
  if (state.mode !== 'spawner') throw new Error(`no spawner here: ${state.reason}`)
  return state.pid
}

describe('a killed spawner process', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ lifetime: 'manual', settings: { permissions: { allow: ['Bash'] } } })
  })
  afterAll(() => server.close())

  it('ends the call under it with an error result, and the next call runs', async () => {
    const killed = await spawnerPid()
    const marker = uniqueSleepMarker()
    const pending = runBash(server, 'toolu_under', `sleep ${marker}`)
    await vi.waitFor(async () => expect(await processesMatching(marker)).not.toEqual([]), REAL_PROCESS_WAIT)
    process.kill(killed, 'SIGKILL')
    const result = await pending
    expect(result).toMatchObject({ tool_use_id: 'toolu_under', is_error: true })
    expect(result.content).toContain('The process that starts commands stopped (signal SIGKILL) while this command ran')
    // They end through the kernel (bubblewrap's --die-with-parent, the namespace's pdeathsig), which
    // the service cannot await: gone soon after the result, never left behind.
    await vi.waitFor(async () => expect(await processesMatching(marker)).toEqual([]), REAL_PROCESS_WAIT)
    expect(await runBash(server, 'toolu_next', 'echo next')).toMatchObject({ content: 'next' })
    expect(await spawnerPid()).not.toBe(killed)
  })
})
