// Pins the warm sandbox pool through the service (docs/adr/0390-warm-sandboxes.md): a session's
// second Bash command takes a sandbox set up ahead, /readyz and /metrics tell it, and DELETE of
// the session kills its waiting sandboxes before the 204.
import { describe, expect, it, vi } from 'vitest'
import { detectSandbox } from '../../src/tools/bash/sandbox.js'
import { warmSandboxes } from '../../src/tools/bash/warm-sandboxes.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { processGroupExists } from '../tools/bash/process-helpers.js'

const detected = detectSandbox('auto')

describe.skipIf(detected.sandbox !== 'bwrap')(`warm sandboxes through the service (${detected.reason})`, () => {
  it('are taken by the next command, counted in /readyz and /metrics, and killed with their session', async () => {
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

    expect(await run('echo first')).toBe('first')
    expect(await readyz()).toMatchObject({ per_session: 2, per_tenant: 8, max: 32, hits: 0, misses: 1 })
    await vi.waitFor(async () => expect(await readyz()).toMatchObject({ ready: 2, starting: 0 }), REAL_PROCESS_WAIT)
    expect(await run('echo second')).toBe('second')
    expect(await readyz()).toMatchObject({ hits: 1, misses: 1 })
    const metrics = await (await fetch(`${baseUrl}/metrics`)).text()
    expect(metrics).toContain('toolexec_warm_sandbox_hits_total 1')
    expect(metrics).toContain('toolexec_warm_sandbox_misses_total 1')
    expect(metrics).toMatch(/toolexec_warm_sandboxes\{state="ready"\} \d/)

    await vi.waitFor(async () => expect(await readyz()).toMatchObject({ ready: 2, starting: 0 }), REAL_PROCESS_WAIT)
    const waiting = warmSandboxes.pids({ tenant: 'default', sessionId: session_id })
    expect(waiting).toHaveLength(2)
    expect((await fetch(`${baseUrl}/v1/sessions/${session_id}`, { method: 'DELETE' })).status).toBe(204)
    expect(await readyz()).toMatchObject({ ready: 0, starting: 0 })
    await vi.waitFor(() => expect(waiting.filter((pid) => processGroupExists(pid))).toEqual([]), REAL_PROCESS_WAIT)
  })
})
