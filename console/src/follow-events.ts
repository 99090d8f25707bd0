import { createParser } from 'eventsource-parser'
import { authorization, type RunEvent } from './api.js'

export type FollowState =
  | { kind: 'live' }
  | { kind: 'reconnecting'; detail: string }
  | { kind: 'done' }
  | { kind: 'failed'; detail: string }

type FollowOptions = {
  /** The last seq applied: each (re)connection asks for what came after it, so nothing repeats or goes missing. */
  after: () => number
  onEvents: (events: RunEvent[]) => void
  onState: (state: FollowState) => void
}

/**
 * Follows a run's events over SSE with fetch, so the key travels in the Authorization header
 * (EventSource and browser WebSockets cannot send one, and a key in the URL would end up in
 * logs). A dropped stream reconnects with `?after=` the last seq applied (docs/events.md).
 */
export function followEvents(runId: string, options: FollowOptions): () => void {
  const controller = new AbortController()
  void (async () => {
    let delayMs = 500
    while (!controller.signal.aborted) {
      const outcome = await readStream(runId, options, controller.signal).catch((error: unknown) => ({
        retry: String(error instanceof Error ? error.message : error),
      }))
      if (controller.signal.aborted) return
      if ('end' in outcome) return options.onState(outcome.end)
      options.onState({ kind: 'reconnecting', detail: outcome.retry })
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      delayMs = Math.min(delayMs * 2, 5000)
    }
  })()
  return () => controller.abort()
}

/** The longest the page parses events without letting the browser draw or answer input. */
const SLICE_MS = 25

type StreamOutcome = { end: FollowState } | { retry: string }

async function readStream(runId: string, options: FollowOptions, signal: AbortSignal): Promise<StreamOutcome> {
  const response = await fetch(`/v1/runs/${encodeURIComponent(runId)}/events?after=${options.after()}`, {
    headers: { accept: 'text/event-stream', ...authorization() },
    signal,
  })
  // 204: the run is over and everything was seen.
  if (response.status === 204) return { end: { kind: 'done' } }
  if (!response.ok || response.body === null) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string }
    const detail = problem.detail ?? `The service answered ${response.status}`
    // A refusal that a retry cannot cure ends the follow; capacity and outages are retried.
    return response.status === 429 || response.status >= 500 ? { retry: detail } : { end: { kind: 'failed', detail } }
  }
  options.onState({ kind: 'live' })
  let completed = false
  let batch: RunEvent[] = []
  const parser = createParser({
    onEvent(message) {
      const event = JSON.parse(message.data) as RunEvent
      if (event.type === 'run.completed') completed = true
      batch.push(event)
    },
  })
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let sliceStarted = performance.now()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parser.feed(value)
    if (batch.length > 0) {
      options.onEvents(batch)
      batch = []
    }
    // A replay arrives faster than it is parsed and each read resolves at once: without a pause
    // the whole replay would be one task, and the page would not answer a click until it ends.
    if (performance.now() - sliceStarted > SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0))
      sliceStarted = performance.now()
    }
  }
  return completed ? { end: { kind: 'done' } } : { retry: 'the event stream ended early' }
}
