import { createSerialQueue, type SerialQueue } from '../../async/serial-queue.js'

type Lane = { queue: SerialQueue; users: number }

/**
 * This instance's calls of older-revision MCP sessions. Each request of such a session is served
 * by a fresh server (docs/adr/0340-mcp-endpoint-on-sdk-v2.md), so what used to live in the
 * session's server lives here: the lane that runs its calls one at a time, and the abort of each
 * call by JSON-RPC id, for a `notifications/cancelled` that arrives as a request of its own.
 */
export function createSessionCalls() {
  const lanes = new Map<string, Lane>()
  const running = new Map<string, AbortController>()
  const callKey = (mcpSessionId: string, requestId: string | number) => `${mcpSessionId}\u0000${String(requestId)}`

  return {
    /** Runs `task` after the session's earlier calls on this instance, aborting it on a cancel by id. */
    async run<T>(
      mcpSessionId: string,
      requestId: string | number,
      task: (cancelled: AbortSignal) => Promise<T>,
    ): Promise<T> {
      const lane = lanes.get(mcpSessionId) ?? { queue: createSerialQueue(), users: 0 }
      lanes.set(mcpSessionId, lane)
      lane.users += 1
      const key = callKey(mcpSessionId, requestId)
      const controller = new AbortController()
      running.set(key, controller)
      try {
        return await lane.queue.run(() => task(controller.signal))
      } finally {
        if (running.get(key) === controller) running.delete(key)
        lane.users -= 1
        if (lane.users === 0) lanes.delete(mcpSessionId)
      }
    },
    /** A client's `notifications/cancelled`: true when the call was running here. */
    cancel(mcpSessionId: string, requestId: string | number, reason: string): boolean {
      const controller = running.get(callKey(mcpSessionId, requestId))
      controller?.abort(reason)
      return controller !== undefined
    },
  }
}

export type SessionCalls = ReturnType<typeof createSessionCalls>
