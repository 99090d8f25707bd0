// Pins the warm sandbox pool through the service (docs/adr/0390-warm-sandboxes.md): a session's
// second Bash command takes a sandbox set up ahead, /readyz and /metrics tell it, and DELETE of
// the session kills its waiting sandboxes before the 204.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { detectSandbox } from '../../src/tools/bash/sandbox.js'
import { warmSandboxes } from '../../src/tools/bash/warm-sandboxes.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { processGroupExists } from '../tools/bash/process-helpers.js'

const detected = detectSandbox('auto')

describe.skipIf(detected.sandbox !== 'bwrap')(`warm sandboxes through the service (${detected.reason})`, () => {
  it('are taken by a later command, counted in /readyz and /metrics, and killed with their session', async () => {
    const { baseUrl } = await startTestServer({ env: { TOOLEXEC_SANDBOX: 'bwrap' } })
    const created = await fetch(`${baseUrl}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ permissions: { allow: ['Bash'] } }),
    })
    const { session_id } = (await created.json()) as { session_id: string }
    const run = async (command: string) => {
      const answer = await fetch(`${baseUrl}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          session_id,
          tool_uses: [{ type: 'tool_use', id: 'b', name: 'Bash', input: { command } }],
        }),
      })
      return ((await answer.json()) as { results: Array<{ content: string }> }).results[0]?.content
    }
    const readyz = async () =>
      ((await (await fetch(`${baseUrl}/readyz`)).json()) as { warm_sandboxes: Record<string, number> }).warm_sandboxes

    // The first command leaves the pool empty; the second fills it; the third takes one.
    expect(await run('echo first')).toBe('first')
    expect(await readyz()).toMatchObject({ per_session: 2, per_tenant: 16, max: 32, hits: 0, misses: 1, ready: 0 })
    expect(await run('echo second')).toBe('second')
    await vi.waitFor(async () => expect(await readyz()).toMatchObject({ ready: 2, starting: 0 }), REAL_PROCESS_WAIT)
    expect(await run('echo third')).toBe('third')
    expect(await readyz()).toMatchObject({ hits: 1, misses: 2 })
    const metrics = await (await fetch(`${baseUrl}/metrics`)).text()
    expect(metrics).toContain('toolexec_warm_sandbox_hits_total 1')
    expect(metrics).toContain('toolexec_warm_sandbox_misses_total 2')
    expect(metrics).toMatch(/toolexec_warm_sandboxes\{state="ready"\} \d/)

    await vi.waitFor(async () => expect(await readyz()).toMatchObject({ ready: 2, starting: 0 }), REAL_PROCESS_WAIT)
    const waiting = warmSandboxes.pids({ tenant: 'default', sessionId: session_id })
    expect(waiting).toHaveLength(2)
    expect((await fetch(`${baseUrl}/v1/sessions/${session_id}`, { method: 'DELETE' })).status).toBe(204)
    expect(await readyz()).toMatchObject({ ready: 0, starting: 0 })
    await vi.waitFor(() => expect(waiting.filter((pid) => processGroupExists(pid))).toEqual([]), REAL_PROCESS_WAIT)
  })
})

describe.skipIf(detected.sandbox !== 'bwrap')('warm sandboxes of a run without a session', () => {
  it('are killed when the run ends with its own session', async () => {
    // A run without a session has the settings file's permissions.
    const directory = await mkdtemp(path.join(tmpdir(), 'toolexec-warm-'))
    onTestFinished(() => rm(directory, { recursive: true, force: true }))
    const settings = path.join(directory, 'settings.json')
    await writeFile(settings, JSON.stringify({ permissions: { allow: ['Bash'] } }))
    const { baseUrl } = await startTestServer({ env: { TOOLEXEC_SANDBOX: 'bwrap', TOOLEXEC_SETTINGS: settings } })
    const before = warmSandboxes.state()
    const uses = ['a', 'b', 'c'].map((id) => ({ type: 'tool_use', id, name: 'Bash', input: { command: `echo ${id}` } }))
    const answer = await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_uses: uses }),
    })
    const { results } = (await answer.json()) as { results: Array<{ content: string }> }
    expect(results.map((result) => result.content)).toEqual(['a', 'b', 'c'])
    // Its second command filled the pool; the run's end took it away with the session.
    expect(warmSandboxes.state().discarded).toBeGreaterThan(before.discarded)
    expect(warmSandboxes.pids()).toEqual([])
  })
})
