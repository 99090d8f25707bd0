// Pins that DELETE /v1/sessions/{id} ends the session's persistent bash shell and its whole
// process tree at once: a background job the shell started stops, where before it kept writing
// into the session's directory until the sweep, up to a minute after the 204.
import { describe, expect, it, vi } from 'vitest'
import { processesMatching } from '../helpers/processes.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { startTestServer } from '../helpers/start-test-server.js'

describe('DELETE /v1/sessions/{id}', () => {
  it("ends the session's shell and the jobs it started before it answers", async () => {
    const { baseUrl } = await startTestServer()
    const created = await fetch(`${baseUrl}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ toolsets: ['anthropic_client'], permissions: { allow: ['bash'] } }),
    })
    const { session_id } = (await created.json()) as { session_id: string }
    // A marker no other process has: the job's sleep carries it.
    const marker = `0.${process.pid}${Date.now() % 100_000}`
    const run = await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        session_id,
        tool_uses: [
          {
            type: 'tool_use',
            id: 'bg',
            name: 'bash',
            input: {
              command: `(while true; do echo x >> bg.log; sleep ${marker}; done) > /dev/null 2>&1 & echo started`,
            },
          },
        ],
      }),
    })
    expect(((await run.json()) as { results: Array<{ content: string }> }).results[0]?.content).toBe('started')
    // The job runs once its subshell forked its first sleep: on a loaded host that can be after
    // the answer, so the test waits to see it rather than looking at one instant.
    await vi.waitFor(() => expect(processesMatching(`sleep ${marker}`).length).toBeGreaterThan(0), REAL_PROCESS_WAIT)
    const deleted = await fetch(`${baseUrl}/v1/sessions/${session_id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(204)
    expect(processesMatching(`sleep ${marker}`)).toEqual([])
    expect(processesMatching('bg.log')).toEqual([])
  })
})
