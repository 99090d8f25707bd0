import type { FastifyBaseLogger } from 'fastify'
import type { WebSocket } from 'ws'
import { createSerialQueue } from '../../src/async/serial-queue.js'
import { errorFrame, type RawFrame } from './frames.js'

export type FrameLoopOptions = {
  /** Handles one client frame; a throw becomes an `error` frame and the socket stays open. */
  onFrame: (raw: RawFrame) => Promise<void>
  send: (frame: object) => void
  log: FastifyBaseLogger
  /** The log line for a frame that failed with an internal error. */
  failure: string
}

/**
 * Handles a socket's frames one at a time, in arrival order, so answers and error frames come
 * back in that order too. `after` queues work behind the frames already received.
 */
export function handleFramesInOrder(
  socket: WebSocket,
  options: FrameLoopOptions,
): { after: (task: () => void) => void } {
  const frames = createSerialQueue()
  socket.on('message', (raw) => {
    frames
      .run(() => options.onFrame(raw))
      .catch((error: unknown) => {
        if (errorFrame(error).code === 'internal_error') options.log.error({ err: error }, options.failure)
        options.send(errorFrame(error))
      })
  })
  return {
    after(task) {
      void frames.run(task)
    },
  }
}
