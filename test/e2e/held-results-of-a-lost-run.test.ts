// Pins that a call which finished while an earlier block still ran keeps its result when its
// instance dies (docs/adr/0238): the result is stored as soon as it is final, and the survivor
// that closes the lost run (closeLostRun, on a real redis-server) gives that call its own result;
// only the call that really was running gets the text that it may have had partial effects.
import { describe, expect, it } from 'vitest'
import { closeLostRun } from '../../src/runs/lost/close-lost-run.js'
import { redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'

describe.skipIf(redisSkipReason !== undefined)('results held behind a running block, on Redis', () => {
  it('survive the instance: the lost run gives the finished call its result', async () => {
    const redis = await startRedisServer()
    const tools = createTestTools()
    const { app, baseUrl, close } = await startTestServer({
      lifetime: 'manual',
      extraTools: tools.tools,
      env: { TOOLEXEC_REDIS_URL: redis.url },
    })
    try {
      const started = await fetch(`${baseUrl}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          wait: false,
          tool_uses: [
            { type: 'tool_use', id: 'running', name: 'Gate', input: { key: 'g' } },
            { type: 'tool_use', id: 'finished', name: 'Echo', input: { text: 'kept' } },
          ],
        }),
      })
      const { run_id } = (await started.json()) as { run_id: string }
      // Echo is done and waits behind Gate: its result is stored, though not handed out.
      let held = await app.stores.runs.heldResults(run_id)
      while (!held.has('finished')) {
        await new Promise((resolve) => setTimeout(resolve, 10))
        held = await app.stores.runs.heldResults(run_id)
      }
      const events = await app.stores.events.read(run_id, 0)
      expect(events.filter((event) => event.type === 'tool.result')).toEqual([])
      // A survivor closes the run as if this instance had died now.
      expect(
        await closeLostRun(app.stores, { runId: run_id, tenant: 'default' }, { runTtlMs: 60_000, now: Date.now }),
      ).toBe(true)
      const results = (await app.stores.events.read(run_id, 0))
        .filter((event) => event.type === 'tool.result')
        .map((event) => (event as { result: { tool_use_id: string; content: string } }).result)
      expect(results.map((result) => result.tool_use_id)).toEqual(['running', 'finished'])
      expect(results[0]?.content).toContain('partial effects')
      expect(results[1]).toEqual({ type: 'tool_result', tool_use_id: 'finished', content: 'kept' })
      expect((await app.stores.runs.heldResults(run_id)).size).toBe(0)
    } finally {
      tools.open('g', 'late')
      await close()
      await redis.stop()
    }
  }, 30_000)
})
