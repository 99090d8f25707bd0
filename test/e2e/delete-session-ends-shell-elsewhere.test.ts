// Pins that deleting a session through one instance ends its shell on the instance that holds it
// (Redis mode, two instances on one real redis-server and shared directories): the DELETE tells
// every instance, so the shell's background job stops at once, not at a sweep (the sweep is set
// to ten minutes here, so only the announcement can end it within the test).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { processesMatching } from '../helpers/processes.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import { startTestServer } from '../helpers/start-test-server.js'

describe.skipIf(redisSkipReason !== undefined)('DELETE /v1/sessions/{id} across instances', () => {
  it('ends the shell held by the other instance', async () => {
    const redis = await startRedisServer()
    const data = mkdtempSync(path.join(tmpdir(), 'toolexec-two-'))
    const env = {
      TOOLEXEC_REDIS_URL: redis.url,
      TOOLEXEC_WORKSPACE: path.join(data, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_MEMORY_DIR: path.join(data, 'memory'),
    }
    const options = { lifetime: 'manual' as const, env, clientShellSweepIntervalMs: 600_000 }
    const a = await startTestServer(options)
    const b = await startTestServer(options)
    try {
      const created = await fetch(`${a.baseUrl}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ toolsets: ['anthropic_client'], permissions: { allow: ['bash'] } }),
      })
      const { session_id } = (await created.json()) as { session_id: string }
      const marker = `0.${process.pid}${Date.now() % 100_000}`
      const run = await fetch(`${a.baseUrl}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          session_id,
          tool_uses: [
            {
              type: 'tool_use',
              id: 'bg',
              name: 'bash',
              input: { command: `(while true; do sleep ${marker}; done) > /dev/null 2>&1 & echo started` },
            },
          ],
        }),
      })
      expect(((await run.json()) as { results: Array<{ content: string }> }).results[0]?.content).toBe('started')
      // Seen once its subshell forked the first sleep, which a loaded host may do after the answer.
      await vi.waitFor(() => expect(processesMatching(`sleep ${marker}`).length).toBeGreaterThan(0), REAL_PROCESS_WAIT)
      // Through B, which holds no shell of the session.
      expect((await fetch(`${b.baseUrl}/v1/sessions/${session_id}`, { method: 'DELETE' })).status).toBe(204)
      while (processesMatching(`sleep ${marker}`).length > 0) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(processesMatching(`sleep ${marker}`)).toEqual([])
    } finally {
      await a.close()
      await b.close()
      await redis.stop()
      rmSync(data, { recursive: true, force: true })
    }
  }, 30_000)
})
