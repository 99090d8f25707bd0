import type Anthropic from '@anthropic-ai/sdk'
import type { Logger } from '../logging/logger.js'
import { isFinalRefusal, sleep } from './api-status.js'

/** The fields of a session event this worker reads; the rest pass by. */
export type SessionEvent = {
  type: string
  id: string
  name?: string
  input?: Record<string, unknown>
  evaluated_permission?: 'allow' | 'ask' | 'deny'
  tool_use_id?: string
  result?: 'allow' | 'deny'
  stop_reason?: { type: string; event_ids?: string[] } | null
}

const BACKOFF_MS = [250, 500, 1000, 2000, 5000] as const

/**
 * Every event of a session, once each, in order: the live stream is attached first, then the
 * history is read (a call whose result is already there is seen as answered before the stream's
 * events are handled), as the SDK's own runner does. Reconnects after a drop, reading the history
 * again. Resolves when `signal` aborts or the server refuses the stream for good.
 */
export async function readSessionEvents(
  client: Anthropic,
  sessionId: string,
  /** `before`: the event happened before this worker first attached (its first history read). */
  handle: (event: SessionEvent, before: boolean) => Promise<void> | void,
  options: { signal: AbortSignal; log: Logger; onHistory: (events: readonly SessionEvent[]) => void },
): Promise<void> {
  const { signal, log } = options
  const seen = new Set<string>()
  const once = async (event: SessionEvent, before: boolean) => {
    if (seen.has(event.id)) return
    seen.add(event.id)
    await handle(event, before)
  }
  let attached = false
  for (let attempt = 0; !signal.aborted; attempt += 1) {
    try {
      const stream = await client.beta.sessions.events.stream(sessionId, {}, { signal })
      const history: SessionEvent[] = []
      for await (const event of client.beta.sessions.events.list(sessionId, { limit: 1000 }, { signal }))
        history.push(event as unknown as SessionEvent)
      // The whole history first: what it answers or confirms later must be known before a call runs.
      options.onHistory(history)
      // After a reconnect, what the history holds that was not seen happened while this worker
      // was attached: it is handled as live (an interrupt then cancels what runs here).
      for (const event of history) await once(event, !attached)
      attached = true
      for await (const event of stream) {
        attempt = 0
        await once(event as unknown as SessionEvent, false)
        if (signal.aborted) return
      }
    } catch (error) {
      if (signal.aborted) return
      if (isFinalRefusal(error)) {
        log.error({ err: error, maSessionId: sessionId }, 'the session event stream was refused')
        throw error
      }
      log.warn({ err: error, maSessionId: sessionId }, 'the session event stream dropped; reconnecting')
    }
    await sleep(BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]!, signal)
  }
}
