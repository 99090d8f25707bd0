import type { FastifyBaseLogger } from 'fastify'
import type { WebSocket } from 'ws'
import type { RunEvent } from '../../../src/events/run-event.js'
import { handleFramesInOrder } from '../frame-loop.js'
import { errorFrame, type RawFrame } from '../frames.js'

// A subscriber this far behind is cut off; it reconnects with ?after= and misses nothing.
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024

export type EventSocketOptions = {
  /** `onEnd`: the run is over and nothing more will come (a replay that starts past run.completed). */
  subscribe: (listener: (event: RunEvent) => void, onEnd: () => void) => Promise<() => void>
  /** Handles one client frame; a throw becomes an `error` frame and the socket stays open. */
  onFrame: (raw: RawFrame) => Promise<void>
  log: FastifyBaseLogger
  onClose?: () => void
}

/**
 * Sends a run's events over a WebSocket as JSON text frames and closes with 1000 after
 * `run.completed`. The subscriber leaving never touches the run.
 */
export function serveEventSocket(socket: WebSocket, options: EventSocketOptions): void {
  let unsubscribe: (() => void) | undefined
  let closed = false

  handleFramesInOrder(socket, { onFrame: options.onFrame, send, log: options.log, failure: 'websocket frame failed' })
  socket.on('close', () => {
    closed = true
    unsubscribe?.()
    options.onClose?.()
  })

  function send(frame: object): void {
    if (socket.readyState !== socket.OPEN) return
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      socket.close(1013, 'subscriber too slow: reconnect with ?after=')
      return
    }
    socket.send(JSON.stringify(frame))
  }

  options
    .subscribe(
      (event) => {
        send(event)
        if (event.type === 'run.completed') socket.close(1000, 'run completed')
      },
      () => socket.close(1000, 'run completed'),
    )
    .then(
      (stop) => {
        if (closed) stop()
        else unsubscribe = stop
      },
      (error: unknown) => {
        send(errorFrame(error))
        socket.close(1011, 'subscription failed')
      },
    )
}
