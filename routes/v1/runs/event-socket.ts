import type { FastifyBaseLogger } from 'fastify'
import type { WebSocket } from 'ws'
import type { RunEvent } from '../../../src/events/run-event.js'
import { handleFramesInOrder } from '../frame-loop.js'
import { errorFrame, type RawFrame } from '../frames.js'

export type EventSocketOptions = {
  /** `onEnd`: the run is over and nothing more will come (a replay that starts past run.completed). */
  subscribe: (listener: (event: RunEvent) => void, onEnd: () => void) => Promise<() => void>
  /** Handles one client frame; a throw becomes an `error` frame and the socket stays open. */
  onFrame: (raw: RawFrame) => Promise<void>
  log: FastifyBaseLogger
  onClose?: () => void
  /** Unsent bytes past which the subscriber is cut off (TOOLEXEC_MAX_SUBSCRIBER_BUFFER_BYTES). */
  maxBufferedBytes: number
}

/** The close code of a subscriber too slow to keep up (docs/adr/0126-slow-subscribers-are-cut-off-by-bytes.md). */
export const SLOW_SUBSCRIBER_CLOSE_CODE = 1013

/**
 * Sends a run's events over a WebSocket as JSON text frames and closes with 1000 after
 * `run.completed`. The subscriber leaving never touches the run.
 */
export function serveEventSocket(socket: WebSocket, options: EventSocketOptions): void {
  let unsubscribe: (() => void) | undefined
  let closed = false
  /** The last event seq sent: a subscriber cut off resumes after it and misses nothing. */
  let lastSeq = 0

  handleFramesInOrder(socket, { onFrame: options.onFrame, send, log: options.log, failure: 'websocket frame failed' })
  socket.on('close', () => {
    closed = true
    unsubscribe?.()
    options.onClose?.()
  })

  function send(frame: object): void {
    if (socket.readyState !== socket.OPEN) return
    if (socket.bufferedAmount > options.maxBufferedBytes) {
      socket.close(SLOW_SUBSCRIBER_CLOSE_CODE, `subscriber too slow: resume with after=${lastSeq}`)
      return
    }
    socket.send(JSON.stringify(frame))
    if ('seq' in frame && typeof frame.seq === 'number') lastSeq = frame.seq
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
