// The one WebSocket client of the tests: a real `ws` socket over the network (`connect`) or
// fastify's injected one (`injectSocket`), both recording every frame the same way.
import WebSocket from 'ws'
import type { TestApp } from './build-test-app.js'

/** A WebSocket frame as the tests read it. */
export type Frame = Record<string, unknown> & { type: string }

type Closed = { code: number; reason: string }

/** Records every frame `socket` receives; `until` resolves with the first (past or future) that passes `test`. */
function recordFrames(socket: WebSocket) {
  const received: Frame[] = []
  const waiters: Array<{ test: (frame: Frame) => boolean; resolve: (frame: Frame) => void }> = []
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Frame
    received.push(frame)
    for (const waiter of waiters.filter((candidate) => candidate.test(frame))) waiter.resolve(frame)
  })
  const closed = new Promise<Closed>((resolve) => {
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) }))
  })
  return {
    received,
    closed,
    until: (test: (frame: Frame) => boolean) =>
      new Promise<Frame>((resolve) => {
        const seen = received.find(test)
        if (seen) resolve(seen)
        else waiters.push({ test, resolve })
      }),
  }
}

const sender = (socket: WebSocket) => (frame: unknown) =>
  socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame))

/** A real `ws` client of a listening server. */
export function connect(url: string, headers: Record<string, string> = {}, options: WebSocket.ClientOptions = {}) {
  const socket = new WebSocket(url, { ...options, headers })
  const recorder = recordFrames(socket)
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
    socket.once('unexpected-response', (request, response) => {
      // With this listener ws leaves the refused request open; end it so the server can close.
      request.destroy()
      reject(new Error(`HTTP ${response.statusCode}`))
    })
  })
  return { socket, opened, send: sender(socket), ...recorder }
}

/**
 * injectWS from a loopback address (its fake request has no socket of its own), with the frame
 * recorder attached before the upgrade completes so no early frame is lost.
 */
export async function injectSocket(app: TestApp['app'], url: string, headers: Record<string, string> = {}) {
  let recorder!: ReturnType<typeof recordFrames>
  const socket = await app.injectWS(url, { headers, socket: { remoteAddress: '127.0.0.1' } } as never, {
    onInit: (ws) => {
      recorder = recordFrames(ws)
    },
  })
  return { socket, send: sender(socket), ...recorder }
}
