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
  // Nothing thrown here may go unhandled: an unhandled rejection stops the process for every
  // tenant (docs/adr/0097-process-survives-faults-at-our-boundaries.md). Each step catches.
  const guard = (error: unknown, message: string) => {
    try {
      options.log.error({ err: error }, message)
    } catch {
      // A logger that throws has nowhere left to report to.
    }
  }
  socket.on('message', (raw) => {
    frames
      .run(() => options.onFrame(raw))
      .catch((error: unknown) => {
        if (errorFrame(error).code === 'internal_error') guard(error, options.failure)
        options.send(errorFrame(error))
      })
      .catch((error: unknown) => guard(error, 'error frame could not be sent'))
  })
  return {
    after(task) {
      frames.run(task).catch((error: unknown) => guard(error, options.failure))
    },
  }
}
