// Pins graceful shutdown: while draining, new runs get 503 and readiness fails; running calls
// finish within the grace period with their real results, later ones are cancelled with results
// that say the service stopped (cancel_reason `shutdown`, unlike a client's cancel), and
// subscribers receive run.completed before their sockets close.
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'
import { connect } from '../helpers/ws-client.js'

async function setup(graceMs: string) {
  const tools = createTestTools()
  const server = await startTestServer({ extraTools: tools.tools, env: { TOOLEXEC_SHUTDOWN_GRACE_MS: graceMs } })
  const post = (body: object) =>
    fetch(`${server.baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const gateRun = async (key: string) => {
    const response = await post({
      wait: false,
      tool_uses: [{ type: 'tool_use', id: key, name: 'Gate', input: { key } }],
    })
    return (await response.json()) as { run_id: string; events_url: string }
  }
  return { ...server, tools, post, gateRun }
}

describe('graceful shutdown', () => {
  it('lets a running call finish inside the grace period and refuses new runs meanwhile', async () => {
    const { app, tools, post, gateRun, baseUrl, wsUrl } = await setup('60000')
    const run = await gateRun('a')
    const subscriber = connect(`${wsUrl}${run.events_url}`)
    await subscriber.opened
    await tools.started('a')
    const closing = app.close()
    const refused = await post({ tool_uses: [{ type: 'tool_use', id: 'x', name: 'Echo', input: { text: 'x' } }] })
    expect(refused.status).toBe(503)
    expect(((await refused.json()) as { code: string }).code).toBe('shutting_down')
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(503)
    tools.open('a', 'finished in time')
    await closing
    expect((await subscriber.closed).code).toBe(1000)
    const result = subscriber.received.find((frame) => frame.type === 'tool.result')
    expect(result).toMatchObject({ result: { content: 'finished in time' } })
    expect(subscriber.received.at(-1)).toMatchObject({ type: 'run.completed', status: 'completed' })
  })

  it('cancels calls still running after the grace period; every call still gets a result', async () => {
    const { app, tools, gateRun, wsUrl } = await setup('50')
    const run = await gateRun('never')
    const subscriber = connect(`${wsUrl}${run.events_url}`)
    await subscriber.opened
    await tools.started('never')
    await app.close()
    await subscriber.closed
    const result = subscriber.received.find((frame) => frame.type === 'tool.result') as unknown as {
      result: { content: string }
    }
    // Not the user's rejection text: the service stopped, and a backend can tell (cancel_reason).
    expect(result.result.content).toBe(
      '<tool_use_error>The tool service shut down before this call finished. If it had started, it may have had partial effects; check before running it again.</tool_use_error>',
    )
    expect(subscriber.received.at(-1)).toMatchObject({
      type: 'run.completed',
      status: 'cancelled',
      cancel_reason: 'shutdown',
    })
  })

  it('answers a wait: true run cut short by shutdown with cancel_reason, and a client cancel without it', async () => {
    const { app, tools, post, gateRun, baseUrl } = await setup('50')
    const cancelled = await gateRun('by-client')
    await tools.started('by-client')
    await fetch(`${baseUrl}/v1/runs/${cancelled.run_id}/cancel`, { method: 'POST' })
    const view = (await (await fetch(`${baseUrl}/v1/runs/${cancelled.run_id}`)).json()) as Record<string, unknown>
    expect(view.status).toBe('cancelled')
    expect(view).not.toHaveProperty('cancel_reason')

    const waiting = post({ tool_uses: [{ type: 'tool_use', id: 'w', name: 'Gate', input: { key: 'waiting' } }] })
    await tools.started('waiting')
    const closing = app.close()
    const body = (await (await waiting).json()) as { status: string; cancel_reason?: string; results: unknown[] }
    await closing
    expect(body).toMatchObject({ status: 'cancelled', cancel_reason: 'shutdown' })
    expect(body.results).toHaveLength(1)
  })
})
