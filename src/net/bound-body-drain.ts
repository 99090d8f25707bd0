import type { IncomingMessage } from 'node:http'
import { Socket } from 'node:net'

/** How much and how long the rest of a body is read after an early answer (TOOLEXEC_LINGER_*). */
export type DrainBounds = {
  /** Bytes read and dropped at most. */
  maxBytes: number
  /** Time at most from the answer to the end of the body. */
  totalMs: number
  /** Time at most without a byte from the client. */
  idleMs: number
}

/** How often a drain looks at the bytes read: the bounds hold to within this. */
const CHECK_INTERVAL_MS = 50

/**
 * Bounds the read of a request body that was answered before it was read (413, 401, 415, …).
 * Node reads and drops such a body after the answer when the connection is kept alive, so a
 * client still sending reads its answer (a close with its bytes unread would be a reset); this
 * ends the connection once the client has sent more than `maxBytes` since, takes longer than
 * `totalMs`, or sends nothing for `idleMs` (docs/adr/0230-early-answers-keep-reading.md). The
 * dropped body never reaches JavaScript, so the socket's byte count is what is watched. Call it
 * once the answer is written.
 */
export function boundBodyDrain(request: IncomingMessage, bounds: DrainBounds): void {
  const socket = request.socket
  // Only a connection has bytes to drain: a request injected in process (light-my-request, the
  // tests' app.inject) has a stand-in socket with neither a byte count nor destroy().
  if (request.complete || request.destroyed || !(socket instanceof Socket)) return
  const started = Date.now()
  const startBytes = socket.bytesRead
  let lastBytes = startBytes
  let lastProgress = started
  const check = setInterval(
    () => {
      const now = Date.now()
      const bytes = socket.bytesRead
      if (bytes !== lastBytes) {
        lastBytes = bytes
        lastProgress = now
      }
      const over =
        bytes - startBytes > bounds.maxBytes || now - started > bounds.totalMs || now - lastProgress > bounds.idleMs
      if (over) {
        clearInterval(check)
        socket.destroy()
      }
    },
    Math.min(CHECK_INTERVAL_MS, bounds.idleMs),
  )
  check.unref()
  const done = () => clearInterval(check)
  request.once('end', done)
  request.once('close', done)
  socket.once('close', done)
}
