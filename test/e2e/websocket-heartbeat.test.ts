// Pins the WebSocket heartbeat: a client that stops answering pings (a half-open connection) is
// dropped, and its streamed run still completes, while a client that answers stays connected.
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startTestServer } from '../helpers/start-test-server.js'

function open(url: string, options: WebSocket.ClientOptions = {}) {
  const socket = new WebSocket(url, options)
  const frames: Array<{ type?: string; run_id?: string }> = []
  socket.on('message', (data) => frames.push(JSON.parse(String(data))))
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)))
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  return { socket, frames, closed, opened }
}

describe('WebSocket heartbeat', () => {
  it('drops a client that no longer answers pings and completes its streamed run', async () => {
    const { app, wsUrl } = await startTestServer({ env: { TOOLEXEC_WS_PING_INTERVAL_MS: '100' } })
    const healthy = open(`${wsUrl}/v1/stream`)
    const silent = open(`${wsUrl}/v1/stream`, { autoPong: false })
    await Promise.all([healthy.opened, silent.opened])
    silent.socket.send(JSON.stringify({ type: 'run.start' }))
    silent.socket.send(
      JSON.stringify({
        type: 'tool_use',
        tool_use: { type: 'tool_use', id: 'left', name: 'Bash', input: { command: 'echo orphan' } },
      }),
    )

    const code = await silent.closed
    expect(code).toBe(1006) // terminated, no closing handshake: the peer is gone
    expect(healthy.socket.readyState).toBe(WebSocket.OPEN)

    const runId = silent.frames.find((frame) => frame.run_id)?.run_id
    expect(runId).toBeDefined()
    let status = ''
    for (let attempt = 0; attempt < 100 && status !== 'completed'; attempt++) {
      status = (await app.inject({ url: `/v1/runs/${runId}` })).json().status
      if (status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(status).toBe('completed')
    healthy.socket.close()
    await healthy.closed
  })
})
