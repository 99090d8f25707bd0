import WebSocket from 'ws'

export type Frame = Record<string, unknown> & { type: string }

/** A real `ws` client that records every frame and can wait for one. */
export function connect(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, { headers })
  const received: Frame[] = []
  const waiters: Array<{ test: (frame: Frame) => boolean; resolve: (frame: Frame) => void }> = []
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Frame
    received.push(frame)
    for (const waiter of waiters.filter((candidate) => candidate.test(frame))) waiter.resolve(frame)
  })
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
    socket.once('unexpected-response', (request, response) => {
      // With this listener ws leaves the refused request open; end it so the server can close.
      request.destroy()
      reject(new Error(`HTTP ${response.statusCode}`))
    })
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) }))
  })
  return {
    socket,
    received,
    opened,
    closed,
    send: (frame: unknown) => socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    /** Resolves with the first frame (already received or future) that passes `test`. */
    until: (test: (frame: Frame) => boolean) =>
      new Promise<Frame>((resolve) => {
        const seen = received.find(test)
        if (seen) resolve(seen)
        else waiters.push({ test, resolve })
      }),
  }
}
