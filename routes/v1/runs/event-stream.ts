import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RunEvent } from '../../../src/runs/run-event.js'

const HEARTBEAT_MS = 15_000

/**
 * Server-Sent Events: `id` is the event's seq (so `Last-Event-ID` resumes), `event` its type,
 * `data` the JSON event. The stream ends after `run.completed`; a comment line keeps proxies awake.
 */
export async function serveEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  subscribe: (listener: (event: RunEvent) => void) => Promise<() => void>,
  onClose?: () => void,
): Promise<void> {
  reply.hijack()
  const response = reply.raw
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  response.write('retry: 2000\n\n')
  const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS)
  heartbeat.unref()
  let stop: (() => void) | undefined
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    clearInterval(heartbeat)
    stop?.()
    onClose?.()
    response.end()
  }
  request.raw.on('close', end)
  stop = await subscribe((event) => {
    if (ended) return
    response.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
    if (event.type === 'run.completed') setImmediate(end)
  })
  if (ended) stop()
}
