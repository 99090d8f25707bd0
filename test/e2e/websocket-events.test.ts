// Pins run events over a real `ws` client: every event type arrives in seq order, a client that
// reconnects with ?after= misses nothing, several subscribers see the same stream, and leaving
// never affects the run.
import { describe, expect, it } from 'vitest'
import { RUN_EVENT_TYPES } from '../helpers/run-event-types.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'
import { connect, type Frame } from '../helpers/ws-client.js'

async function setup() {
  const tools = createTestTools()
  const server = await startTestServer({ extraTools: tools.tools })
  const start = async (toolUses: object[]) => {
    const response = await fetch(`${server.baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wait: false, tool_uses: toolUses }),
    })
    return (await response.json()) as { run_id: string; events_url: string }
  }
  return { ...server, tools, start }
}

describe('events over WebSocket', () => {
  it('delivers every event type in order, permission round trip included', async () => {
    const { tools, start, wsUrl } = await setup()
    const run = await start([
      { type: 'tool_use', id: 'g', name: 'Gate', input: { key: 'g', progress: 'working' } },
      { type: 'tool_use', id: 't', name: 'Touch', input: { name: 'file' } },
    ])
    const client = connect(`${wsUrl}${run.events_url}`)
    await client.until((frame) => frame.type === 'tool.progress')
    tools.open('g')
    const asked = await client.until((frame) => frame.type === 'permission.requested')
    client.send({ type: 'permission.response', request_id: asked.request_id, decision: 'allow' })
    expect((await client.closed).code).toBe(1000)
    const types = client.received.map((frame) => frame.type)
    expect(new Set(types)).toEqual(new Set(RUN_EVENT_TYPES))
    expect(client.received.map((frame) => frame.seq)).toEqual(types.map((_type, index) => index + 1))
    expect(types.indexOf('permission.requested')).toBeLessThan(types.indexOf('permission.resolved'))
    expect(types.at(-1)).toBe('run.completed')
    expect(tools.touched).toEqual([{ name: 'file' }])
  })

  it('reconnects with ?after= and misses nothing; several subscribers see the same events', async () => {
    const { tools, start, wsUrl } = await setup()
    const run = await start([
      { type: 'tool_use', id: 'a', name: 'Gate', input: { key: 'a', progress: 'a is running' } },
      { type: 'tool_use', id: 'b', name: 'Gate', input: { key: 'b' } },
    ])
    const watcher = connect(`${wsUrl}${run.events_url}`)
    const first = connect(`${wsUrl}${run.events_url}`)
    await first.until((frame) => frame.type === 'tool.progress')
    first.socket.terminate()
    await first.closed
    const lastSeen = first.received.at(-1)!.seq as number
    tools.open('a')
    tools.open('b')
    await watcher.closed
    const second = connect(`${wsUrl}${run.events_url}?after=${lastSeen}`)
    await second.closed
    const stitched = [...first.received, ...second.received]
    expect(stitched.map((frame) => frame.seq)).toEqual(watcher.received.map((frame) => frame.seq))
    expect(stitched).toEqual(watcher.received)
    expect(watcher.received.at(-1)).toMatchObject({ type: 'run.completed', status: 'completed' })
  })

  it('refuses an unknown run with 404 before the upgrade', async () => {
    const { wsUrl } = await setup()
    await expect(connect(`${wsUrl}/v1/runs/run_missing/events`).opened).rejects.toThrow('HTTP 404')
  })

  it('cancels a real Bash command with a run.cancel frame; the process is killed', async () => {
    const { start, wsUrl } = await setup()
    const run = await start([{ type: 'tool_use', id: 'slow', name: 'Bash', input: { command: 'sleep 30' } }])
    const client = connect(`${wsUrl}${run.events_url}`)
    await client.until((frame) => frame.type === 'tool.started')
    // No timing assert: if the process were not killed, `sleep 30` would outlast the test timeout.
    client.send({ type: 'run.cancel' })
    await client.closed
    const result = client.received.find((frame) => frame.type === 'tool.result') as Frame & {
      result: { content: string; is_error: boolean }
    }
    expect(result.result.is_error).toBe(true)
    expect(result.result.content).toContain("The user doesn't want to proceed with this tool use")
    expect(client.received.at(-1)).toMatchObject({ type: 'run.completed', status: 'cancelled' })
  })
})
