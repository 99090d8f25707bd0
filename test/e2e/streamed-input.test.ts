// Pins /v1/stream with a real client forwarding a Messages API event stream: the first tool starts
// while the message is still streaming, results come back in block order, max_tokens is honoured.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'
import { connect } from '../helpers/ws-client.js'

const recorded = (name: string): Array<{ type: string; [key: string]: unknown }> =>
  JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8'))

describe('streamed input', () => {
  it('starts the first tool before the last stream event is sent', async () => {
    const tools = createTestTools()
    const { wsUrl } = await startTestServer({ extraTools: tools.tools })
    const events = recorded('./fixtures/messages-stream-gate-then-bash.json')
    const client = connect(`${wsUrl}/v1/stream`)
    await client.opened
    client.send({ type: 'run.start', cancel_on_error: 'none' })
    let sent = 0
    let sentWhenStarted = -1
    void tools.started('first').then(() => {
      sentWhenStarted = sent
    })
    for (const event of events) {
      client.send(event)
      sent++
      // Forward at the model's pace: once the second block begins, the first one may run.
      if (event.type === 'content_block_start' && (event.content_block as { name: string }).name === 'Bash') {
        await tools.started('first')
      }
    }
    tools.open('first', 'gate one')
    expect((await client.closed).code).toBe(1000)
    expect(sentWhenStarted).toBeGreaterThan(0)
    expect(sentWhenStarted).toBeLessThan(events.length)
    const results = client.received.filter((frame) => frame.type === 'tool.result').map((frame) => frame.result)
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'gate one' },
      { type: 'tool_result', tool_use_id: 'toolu_01B', content: 'second' },
    ])
  })

  it('refuses the cut-off block of a max_tokens stream and runs the rest', async () => {
    const tools = createTestTools()
    const { wsUrl } = await startTestServer({ extraTools: tools.tools })
    const client = connect(`${wsUrl}/v1/stream`)
    await client.opened
    client.send({ type: 'run.start' })
    for (const event of recorded('../runs/fixtures/messages-stream-max-tokens.json')) client.send(event)
    await client.closed
    const results = client.received.filter((frame) => frame.type === 'tool.result').map((frame) => frame.result)
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_02A', content: 'whole' },
      { type: 'tool_result', tool_use_id: 'toolu_02B', content: expect.stringContaining('max_tokens'), is_error: true },
    ])
    expect(tools.executions.echo).toBe(1)
  })
})
